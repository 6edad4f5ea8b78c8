#include "trace_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <sstream>

namespace racetrack::cli {
namespace {

void note_time(TraceStats& s, int64_t start, int64_t end) {
  if (!s.any_time) {
    s.first_time = start;
    s.last_time = end;
    s.any_time = true;
  }
  s.first_time = std::min(s.first_time, start);
  s.last_time = std::max(s.last_time, end);
}

}  // namespace

std::string format_duration(double ns) {
  static constexpr std::pair<double, const char*> kUnits[] = {
      {1, "ns"}, {1e3, "\u00b5s"}, {1e6, "ms"}, {1e9, "s"}};
  size_t u = 0;
  // 999.7 µs prints as 1.00 ms, not 1000 µs.
  while (u + 1 < std::size(kUnits) && std::abs(ns) >= kUnits[u + 1].first * 0.9995) ++u;
  const double value = ns / kUnits[u].first;
  // Three significant digits (6.58 s, 30.5 µs, 812 ms); whole nanoseconds.
  const double magnitude = std::abs(value);
  const int decimals = u == 0 || magnitude >= 99.95 ? 0 : magnitude >= 9.995 ? 1 : 2;
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f %s", decimals, value, kUnits[u].second);
  return buffer;
}

Status gather_stats(const std::string& path, TraceStats& stats) {
  auto source = TraceSource::open_unchecked(path);
  if (!source) return source.error();
  stats.tables.set_regions(RegionDetail::kNone);
  for (;;) {
    auto more = source->read();
    if (!more) return more.error();
    if (!*more) return Ok{};
    const v1::Chunk& chunk = **more;
    ++stats.chunks;
    stats.tables.add(chunk);
    for (const v1::Region& r : chunk.regions()) {
      if (r.id() != stats.regions + 1) continue;  // as the tables skip ids out of order
      ++stats.regions;
      RegionTotal& total = stats.regions_by_space[std::string(space_name(r.space()))];
      ++total.count;
      total.bytes += r.size();
    }
    stats.operator_values += static_cast<uint64_t>(chunk.values_size());
    for (const v1::Op& op : chunk.ops()) {
      ++stats.ops;
      ++stats.per_kind[static_cast<size_t>(op_kind(op))];
      ++stats.per_stream[op.stream()];
      if (op.nvtx()) stats.nvtx_paths.insert(op.nvtx());
      if (op.has_memcpy())
        stats.bytes_per_direction[std::string(direction_name(effective_direction(op.memcpy())))] +=
            op.memcpy().bytes();
      note_time(stats, op.host_start(), op.host_end());
      if (op.has_device_start()) {
        stats.device_times = true;
        note_time(stats, op.device_start(), op.device_end());
      }
    }
  }
}

std::string format_stats(const TraceStats& s) {
  std::ostringstream out;
  const auto& t = s.tables;
  const auto& h = t.header();
  out << "format version " << h.format_version() << ", producer "
      << (h.producer().empty() ? "?" : h.producer()) << "\n";
  if (h.command_line_size()) {
    out << "command:";
    for (const auto& arg : h.command_line()) out << ' ' << arg;
    out << "\n";
  }
  if (!h.host().empty() || h.pid()) out << "host " << h.host() << ", pid " << h.pid() << "\n";
  if (h.rank() >= 0) out << "rank " << h.rank() << "\n";
  if (h.driver_version() || h.runtime_version())
    out << "CUDA driver " << h.driver_version() << ", runtime " << h.runtime_version() << "\n";
  for (const auto& d : h.devices())
    out << "device " << d.id() << ": " << d.name() << " sm_" << d.cc_major() << d.cc_minor() << ", "
        << format_bytes(d.memory_bytes()) << ", copy engines h2d " << d.h2d_copy_engines() << " d2h "
        << d.d2h_copy_engines() << "\n";
  out << s.ops << " ops in " << s.chunks << " chunk(s)";
  if (s.any_time)
    out << ", spanning " << format_duration(static_cast<double>(s.last_time) - static_cast<double>(s.first_time))
        << (s.device_times ? " (with device times)" : " (host times only)");
  if (s.operator_values) out << "\n" << s.operator_values << " operator values (for racetrack diff)";
  out << "\n\nops per kind:\n";
  for (int k = 1; k < kOpKindCount; ++k)
    if (s.per_kind[k]) out << "  " << op_kind_name(static_cast<OpKind>(k)) << ": " << s.per_kind[k] << "\n";
  out << "\nstreams:\n";
  for (const auto& st : t.streams())
    out << "  " << st.id() << " " << t.stream_label(st.id()) << "  device " << st.device() << ", "
        << flags_name(st.flags()) << ", priority " << st.priority() << ", role " << role_name(st.role())
        << ", " << (s.per_stream.count(st.id()) ? s.per_stream.at(st.id()) : 0) << " ops\n";
  if (s.per_stream.count(0)) out << "  host-only ops: " << s.per_stream.at(0) << "\n";
  out << "\nhost threads: " << t.threads().size() << ", events: " << t.events().size() << "\n";
  if (!s.bytes_per_direction.empty()) {
    out << "\nbytes copied:\n";
    for (const auto& [dir, bytes] : s.bytes_per_direction)
      out << "  " << dir << ": " << format_bytes(bytes) << "\n";
  }
  out << "\nregions: " << s.regions << "\n";
  for (const auto& [space, total] : s.regions_by_space)
    out << "  " << space << ": " << total.count << " (" << format_bytes(total.bytes) << ")\n";
  out << "\nNVTX ranges: " << s.nvtx_paths.size() << " distinct paths\n";
  return out.str();
}

}  // namespace racetrack::cli
