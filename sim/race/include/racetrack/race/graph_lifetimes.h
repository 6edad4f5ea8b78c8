// CUDA graph lifetimes (hazard shape C16, docs/hazards.md): stream capture,
// the regions a graph's addresses belonged to when it was captured, and the
// graph-pool intermediates a capture allocated.
//
// Ops submitted to a capturing stream (or to a stream forked into the
// capture) are captured, not run: the checker skips them and this class
// tracks the capture's forks and joins (docs/ordering-rules.md, "Stream
// capture"). A graph launch that names its capture end (captured_seq) is
// checked against the regions live then: an address whose region has been
// freed since is a use-after-free whatever the ordering; an address of a
// graph-pool intermediate that another allocation now holds is a reuse
// hazard when that allocation's users are unordered with the launch.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "racetrack/race/access.h"

namespace racetrack::race {

// A region as it was when a graph was captured, kept after its free.
struct CapturedRegion {
  uint32_t region = 0;
  uint32_t label = 0;
  SpaceKey space = 0;
  uint64_t base = 0, size = 0;
  uint64_t alloc_seq = 0;  // 0: live from the start of the trace
  uint64_t free_seq = 0;   // 0: not freed
  uint32_t free_stream = 0, free_thread = 0;
  // The capture end (seq) of the capture that allocated it: a graph-pool
  // intermediate. 0: allocated outside any capture.
  uint64_t pool_capture = 0;
};

class GraphLifetimes {
 public:
  // Whether `op` is submitted into an open capture: captured, not run.
  bool is_captured(const v1::Op& op) const;
  // A captured op: forks, joins and graph-pool allocations. Call before the
  // resolver sees the op.
  void on_captured(const v1::Op& op, const AccessResolver& resolver);
  // An op that runs (capture begin and end included); call before the
  // resolver sees it. At a capture end, `unjoined` gets the last captured op
  // of every forked stream not joined back into the capturing stream.
  void on_op(const v1::Op& op, const AccessResolver& resolver, std::vector<v1::Op>& unjoined);
  // The region that held [lo, hi) when the capture ending at
  // `captured_seq` ended, if it has been freed since or is a graph-pool
  // intermediate of that capture; null otherwise (still live, or unknown).
  const CapturedRegion* captured_region(uint64_t captured_seq, SpaceKey space, uint64_t lo,
                                        uint64_t hi) const;

 private:
  struct Member {
    std::map<uint32_t, uint64_t> knows;  // per stream: the last captured op seq this stream is ordered after
    uint64_t last_seq = 0;               // its own last captured op
    v1::Op last_op;
  };
  struct Capture {
    uint32_t origin = 0;
    std::map<uint32_t, Member> members;  // by stream, the origin included
    std::vector<size_t> pool;            // kept_ indices of its allocations
  };
  struct RecordedInCapture {
    uint32_t capture = 0;
    std::map<uint32_t, uint64_t> knows;
  };
  void keep(const CapturedRegion& r);
  // The open capture `op` is submitted into (0: none).
  uint32_t capture_of(const v1::Op& op) const;

  std::unordered_map<uint32_t, Capture> open_;                // by capture id
  std::unordered_map<uint32_t, uint32_t> stream_capture_;     // stream -> capture id
  std::unordered_map<uint32_t, RecordedInCapture> recorded_;  // event -> its captured record
  uint32_t next_capture_ = 1;
  uint64_t last_capture_end_ = 0;
  std::vector<CapturedRegion> kept_;
  std::unordered_map<uint32_t, size_t> kept_index_;                        // region -> kept_ index
  std::unordered_map<SpaceKey, std::multimap<uint64_t, size_t>> by_base_;  // kept_ indices by base
};

}  // namespace racetrack::race
