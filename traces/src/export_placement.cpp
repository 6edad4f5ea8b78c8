#include "export_placement.h"

#include <algorithm>
#include <limits>

#include "racetrack/traces/timeline.h"

namespace racetrack::exporting {
namespace {

constexpr int64_t kMaxTime = std::numeric_limits<int64_t>::max();

// Ops that do no work on the device: on a stream they mark a point in its
// order, so without device times they get no duration.
bool marks_a_point(const v1::Op& op) {
  return op.has_record() || op.has_wait() || op.has_alloc() || op.has_free() || op.has_annotation();
}

// start + duration without overflow (times come from the file).
int64_t end_after(int64_t start, uint64_t duration) {
  const uint64_t room = static_cast<uint64_t>(kMaxTime - start);
  return start + static_cast<int64_t>(std::min(duration, room));
}

uint64_t span_of(int64_t start, int64_t end) {
  return end > start ? static_cast<uint64_t>(end) - static_cast<uint64_t>(start) : 0;
}

// Recorded times, moved to 0 only when negative (Perfetto's timestamps are
// unsigned), keeping their duration.
Placement recorded(int64_t start, int64_t end, Timing timing) {
  Placement p;
  p.timing = timing;
  const uint64_t duration = span_of(start, end);
  if (start < 0) {
    p.shifted_ns = static_cast<uint64_t>(0) - static_cast<uint64_t>(start);
    start = 0;
  }
  p.start_ns = start;
  p.end_ns = end_after(start, duration);
  return p;
}

}  // namespace

uint32_t OverlapPacker::place(int64_t start, int64_t end, bool& opened) {
  opened = false;
  if (ends_.empty()) ends_.push_back(std::numeric_limits<int64_t>::min());
  uint32_t track = 0;
  if (ends_[0] > start) {
    // The overlap track that frees up first, if it is free by then.
    if (!free_.empty() && free_.begin()->first <= start) {
      track = free_.begin()->second;
      free_.erase(free_.begin());
    } else {
      track = static_cast<uint32_t>(ends_.size());
      ends_.push_back(start);
      opened = true;
    }
  }
  ends_[track] = std::max(ends_[track], end);
  if (track) free_.insert({ends_[track], track});
  return track;
}

Placement OpPlacement::estimate(const v1::Op& op) {
  // Not before the host asked for it, nor before the stream's earlier work
  // ended; a wait not before the record it waits for.
  const int64_t host_start = std::max<int64_t>(op.host_start(), 0);
  int64_t start = std::max(host_start, stream_end_[op.stream()]);
  if (op.has_wait())
    if (auto it = record_at_.find(op.wait().event()); it != record_at_.end())
      start = std::max(start, it->second);
  Placement p;
  p.timing = Timing::kEstimated;
  p.start_ns = start;
  p.shifted_ns = span_of(op.host_start(), start);
  p.end_ns = marks_a_point(op) ? start : end_after(start, span_of(op.host_start(), op.host_end()));
  return p;
}

Placement OpPlacement::place(const v1::Op& op, bool exported) {
  Placement p;
  if (on_stream_lane(op)) {
    const bool timed = op.has_device_start() && op.has_device_end();
    p = timed ? recorded(op.device_start(), op.device_end(), Timing::kDevice) : estimate(op);
    p.track = {TrackKind::kStream, op.stream(), 0};
    int64_t& stream_end = stream_end_[op.stream()];
    stream_end = std::max(stream_end, p.end_ns);
    if (op.has_record()) record_at_[op.record().event()] = p.start_ns;
  } else {
    p = recorded(op.host_start(), op.host_end(), Timing::kHost);
    p.track = {TrackKind::kThread, op.thread(), 0};
  }
  if (exported) p.track.sub = packers_[p.track.key()].place(p.start_ns, p.end_ns, p.opened_track);
  return p;
}

}  // namespace racetrack::exporting
