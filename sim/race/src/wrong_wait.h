// Why a consumer that did wait is still unordered with the producer
// (catalogue shapes C9 and C10, docs/hazards.md): it waited on an event
// recorded on a stream other than the producer's, it waited on one producer
// stream of several, or the wait that would have ordered it was issued on
// another stream (the default stream where the current one was meant).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "racetrack/race/hazard.h"
#include "racetrack/traces/tables.h"

namespace racetrack::race {

class WrongWaits {
 public:
  // Registers a hazard to explain; call before note() reaches its first op.
  void want(const Hazard& h);
  // Every op of the trace, in submission order (the trace's own ops only).
  void note(const v1::Op& op);
  // The why: text naming the wait that was on the wrong stream, or "" when
  // no wait explains `h`.
  std::string explain(const Hazard& h, const TraceTables& tables) const;

 private:
  struct Wait {
    uint64_t seq = 0;
    uint32_t stream = 0;  // 0: a host sync on an event
    uint32_t thread = 0;
    uint32_t event = 0;
    uint64_t record_seq = 0;  // the record it bound to; 0: none yet
    uint32_t record_stream = 0;
  };
  struct Watch {
    uint64_t first_seq = 0, second_seq = 0;
    uint32_t producer_stream = 0;
    uint64_t consumer = 0;    // agent key of the second op
    std::vector<Wait> waits;  // the consumer's waits between the two ops (the last few)
    Wait misplaced;           // a wait on the producer's later record, issued elsewhere
  };
  struct Record {
    uint64_t seq = 0;
    uint32_t stream = 0;
  };
  // Streams and host threads in one key space, as the happens-before agents.
  static uint64_t agent_key(uint32_t stream, uint32_t thread) {
    return stream ? stream : (uint64_t{1} << 32) | thread;
  }
  void note_wait(const v1::Op& op, uint32_t event);

  std::vector<Watch> watches_;
  std::map<HazardKey, size_t> by_hazard_;
  std::unordered_map<uint64_t, std::vector<size_t>> by_consumer_;
  std::unordered_map<uint32_t, std::vector<size_t>> by_producer_;
  std::unordered_map<uint32_t, Record> last_record_;  // by event
};

}  // namespace racetrack::race
