// Where a timeline puts an op: its lane (a stream or a host thread), the span
// its box gets, and the lanes' names. The viewer places boxes with OpPlacer;
// the exporters share the lanes and their names but keep every recorded
// time, with overlap tracks instead of shifts (traces/src/export_placement.h,
// docs/export.md).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "racetrack/traces/tables.h"

namespace racetrack {

enum class LaneKind : uint8_t { kStream, kThread };

// Device ops go on their stream's lane; sync and query name a stream but run
// on the host thread that calls them, like every pure host op.
bool on_stream_lane(const v1::Op& op);

// "GPU 0: NVIDIA H200", "Host node7 (pid 4242)", "offload (d2h)",
// "main (tid 1001)".
std::string device_lane_name(const TraceTables& tables, uint32_t ordinal);
std::string host_lane_name(const TraceTables& tables);
std::string stream_lane_name(const TraceTables& tables, uint32_t stream);
std::string thread_lane_name(const TraceTables& tables, uint32_t thread);

struct OpSpan {
  LaneKind lane = LaneKind::kThread;
  uint32_t lane_id = 0;       // stream id or host thread id
  int64_t start_ns = 0;       // >= 0
  int64_t end_ns = 0;         // > start_ns
  uint64_t shifted_ns = 0;    // how far the op was moved later
  bool device_timed = false;  // device times, not the host call's
};

// Places ops given in seq order. Device times when an op has them, else its
// host call's; a box never starts before the previous one on its lane ends
// (lanes stay serial, so starts and ends both increase along a lane) and an
// untimed wait never before the record it binds to ends.
class OpPlacer {
 public:
  OpSpan place(const v1::Op& op);

 private:
  std::unordered_map<uint32_t, int64_t> stream_cursor_, thread_cursor_;  // end of the lane's last box
  std::unordered_map<uint32_t, int64_t> record_end_;                     // event -> end of its latest record
};

}  // namespace racetrack
