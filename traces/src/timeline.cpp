#include "racetrack/traces/timeline.h"

#include <algorithm>
#include <limits>

#include "racetrack/traces/describe.h"

namespace racetrack {
namespace {

// Zero-length boxes would tie with the next box on the lane, and viewers
// may then nest one inside the other.
constexpr uint64_t kMinSpanNs = 1;

}  // namespace

bool on_stream_lane(const v1::Op& op) {
  return op.stream() != 0 && !op.has_sync() && !op.has_query();
}

std::string device_lane_name(const TraceTables& tables, uint32_t ordinal) {
  std::string name = "GPU " + std::to_string(ordinal);
  for (const v1::Device& d : tables.header().devices())
    if (d.id() == ordinal && !d.name().empty()) name += ": " + d.name();
  return name;
}

std::string host_lane_name(const TraceTables& tables) {
  const v1::Header& h = tables.header();
  std::string name = "Host";
  if (!h.host().empty()) name += " " + h.host();
  if (h.pid()) name += " (pid " + std::to_string(h.pid()) + ")";
  return name;
}

std::string stream_lane_name(const TraceTables& tables, uint32_t stream) {
  // The role in the name, unless stream_label has it or the name is it.
  const v1::Stream* s = tables.stream(stream);
  std::string name = tables.stream_label(stream);
  const std::string role(s ? role_name(s->role()) : "");
  if (s && s->name() && s->role() != v1::ROLE_UNKNOWN && name != role) name += " (" + role + ")";
  return name;
}

std::string thread_lane_name(const TraceTables& tables, uint32_t thread) {
  const v1::HostThread* t = tables.thread(thread);
  std::string name =
      t && t->name() ? std::string(tables.string(t->name())) : "thread " + std::to_string(thread);
  if (t && t->os_tid()) name += " (tid " + std::to_string(t->os_tid()) + ")";
  return name;
}

OpSpan OpPlacer::place(const v1::Op& op) {
  OpSpan span;
  const bool stream_lane_op = on_stream_lane(op);
  span.lane = stream_lane_op ? LaneKind::kStream : LaneKind::kThread;
  span.lane_id = stream_lane_op ? op.stream() : op.thread();
  int64_t& cursor = stream_lane_op ? stream_cursor_[op.stream()] : thread_cursor_[op.thread()];

  // Unsigned differences: times come from the file and may be anything.
  span.device_timed = stream_lane_op && op.has_device_start() && op.has_device_end();
  int64_t start = span.device_timed ? op.device_start() : op.host_start();
  const int64_t given_end = span.device_timed ? op.device_end() : op.host_end();
  const uint64_t duration =
      given_end > start ? static_cast<uint64_t>(given_end) - static_cast<uint64_t>(start) : 0;
  int64_t earliest = cursor;
  if (op.has_wait() && stream_lane_op && !span.device_timed)
    if (auto it = record_end_.find(op.wait().event()); it != record_end_.end())
      earliest = std::max(earliest, it->second);
  span.shifted_ns = start < earliest ? static_cast<uint64_t>(earliest) - static_cast<uint64_t>(start) : 0;
  start = std::max(start, earliest);
  const uint64_t room = static_cast<uint64_t>(std::numeric_limits<int64_t>::max() - start);
  const int64_t end = start + static_cast<int64_t>(std::min(std::max<uint64_t>(duration, kMinSpanNs), room));
  cursor = end;
  span.start_ns = start;
  span.end_ns = end;
  if (op.has_record()) record_end_[op.record().event()] = end;
  return span;
}

}  // namespace racetrack
