// Several rank traces into one Perfetto trace: each trace walked in turn
// into the same output with a frame of its own (export_common.h): its own
// packet sequence, track and flow ids salted apart, a process track named
// after its rank, and its times shifted so every trace shares the earliest
// header's time origin.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "export_common.h"
#include "racetrack/traces/output_file.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack {
namespace {

Result<v1::Header> read_header(const std::string& path) {
  auto source = TraceSource::open(path);
  if (!source) return source.error();
  auto first = source->read();
  if (!first) return first.error();
  if (!*first || !(*first)->has_header()) return Error{"the trace has no header", {}, path};
  return (*first)->header();
}

std::string process_name(const RankAlignment& a, size_t index) {
  std::string name = a.rank >= 0 ? "rank " + std::to_string(a.rank) : "trace " + std::to_string(index);
  if (!a.host.empty()) name += " on " + a.host;
  return name;
}

}  // namespace

Result<ExportStats> export_ranks(const std::vector<std::string>& paths,
                                 const std::vector<ExportOptions>& options, const std::string& out_path,
                                 std::vector<RankAlignment>* alignment) {
  std::vector<RankAlignment> frames;
  std::vector<v1::ClockDomain> domains;
  std::vector<int64_t> origins;
  for (const std::string& path : paths) {
    auto header = read_header(path);
    if (!header) return header.error();
    frames.push_back({path, header->rank(), header->host(), 0, false});
    domains.push_back(header->clock_domain());
    origins.push_back(header->time_origin_ns());
  }
  const int64_t earliest = *std::min_element(origins.begin(), origins.end());
  for (size_t i = 0; i < frames.size(); ++i) {
    frames[i].offset_ns = origins[i] - earliest;
    frames[i].clock_differs = domains[i] != domains.front();
  }

  if (auto usable = check_output(out_path, paths); !usable) return usable.error();
  auto file = OutputFile::create(out_path);
  if (!file) return file.error();
  std::ofstream out(file->temp_path(), std::ios::binary | std::ios::trunc);
  if (!out) return Error{"cannot create: " + std::string(std::strerror(errno)), {}, out_path};
  ExportStats total;
  for (size_t i = 0; i < paths.size(); ++i) {
    exporting::PerfettoFrame frame;
    frame.sequence_id = static_cast<uint32_t>(i + 1);
    frame.salt = i + 1;
    frame.offset_ns = frames[i].offset_ns;
    frame.pid = frames[i].rank >= 0 ? frames[i].rank + 1 : static_cast<int32_t>(100000 + i);
    frame.process_name = process_name(frames[i], i);
    frame.description = paths[i] + ": times shifted by " + std::to_string(frames[i].offset_ns) +
                        " ns to the earliest header time origin" +
                        (frames[i].clock_differs ? " (another clock domain: approximate)" : "");
    auto sink = exporting::make_perfetto_sink(out, frame);
    auto stats = exporting::walk_trace(paths[i], i < options.size() ? options[i] : ExportOptions{}, *sink,
                                       kPerfettoBytesPerOp);
    if (!stats) {
      Error error = stats.error();
      if (error.file.empty()) error.file = out_path;
      return error;
    }
    total.slices += stats->slices;
    total.flows += stats->flows;
    total.hazards += stats->hazards;
    total.hazards_outside += stats->hazards_outside;
    total.nvtx_ranges += stats->nvtx_ranges;
    total.overlap_tracks += stats->overlap_tracks;
    total.bytes += stats->bytes;
  }
  out.close();
  if (!out) return Error{"cannot write the output", {}, out_path};
  if (auto moved = file->commit(); !moved) return moved.error();
  if (alignment) *alignment = std::move(frames);
  return total;
}

}  // namespace racetrack
