// Events a program already records right after an op, so a fix can wait on
// one of them instead of recording a new one (docs/check.md, "Fixes").
#pragma once

#include <cstdint>
#include <memory_resource>
#include <unordered_map>
#include <vector>

#include "racetrack/traces/tables.h"

namespace racetrack::race {

// Fed every op in submission order. An event counts as recorded right after
// op X when its record is the next thing X's stream is given after X (other
// records aside) and is issued by X's thread, and it is still the event's
// latest record: cudaStreamWaitEvent then orders exactly what an event
// recorded after X would. Memory is bounded by the trace's streams and events.
class RecordedEvents {
 public:
  void on_op(const v1::Op& op);
  // The event recorded right after op `seq`, while that record is the
  // event's latest; 0 when there is none.
  uint32_t right_after(uint64_t seq) const;

 private:
  struct Point {
    uint64_t seq = 0;
    uint32_t thread = 0;
  };
  // By stream (the checker has checked the stream is defined) and, as
  // HappensBefore keeps them, by event id in a map: event ids are whatever
  // the trace says, up to 2^32 - 1, so no table may be sized by them.
  std::vector<Point> last_work_;  // by stream: its latest op that is not a record
  // Op seq -> an event recorded right after it. Its nodes come and go with
  // every record; from the general heap they fragmented it (+6% peak memory
  // in bench_check), so they come from a pool.
  std::pmr::unsynchronized_pool_resource pool_;
  std::pmr::unordered_map<uint32_t, uint64_t> recorded_after_{
      &pool_};  // event -> the op its latest record follows
  std::pmr::unordered_map<uint64_t, uint32_t> event_after_{&pool_};
};

}  // namespace racetrack::race
