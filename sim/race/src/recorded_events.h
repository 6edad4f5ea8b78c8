// Events a program already records right after an op, so a fix can wait on
// one of them instead of recording a new event (docs/check.md, "Fixes").
#pragma once

#include <cstdint>
#include <unordered_map>

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
  std::unordered_map<uint32_t, Point> last_work_;  // stream -> its latest op that is not a record
  std::unordered_map<uint32_t, uint64_t>
      recorded_after_;                                  // event -> the op its latest record follows (0: none)
  std::unordered_map<uint64_t, uint32_t> event_after_;  // op seq -> an event recorded right after it
};

}  // namespace racetrack::race
