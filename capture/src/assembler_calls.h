// The calls the trace assembler holds until they can be written: API events
// keyed by seq, joined by correlation id with the runtime/driver event of the
// same call and with their device records. Records that arrive before their
// call wait as orphans; orphans whose call can no longer come are dropped.
// Written calls are removed, so memory follows what is in flight.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <unordered_set>
#include <vector>

#include "api_event.h"
#include "device_record.h"

namespace racetrack::capture {

uint64_t correlation_of(const DeviceRecord& record);

struct Call {
  ApiEvent event;
  std::vector<uint64_t> payload;  // argument words or NVTX text
  std::vector<DeviceRecord> records;
  bool applied = false;  // already acted on out of order (a block-alloc read ahead)

  template <typename T>
  const T* first_record() const {
    for (const DeviceRecord& r : records)
      if (const T* found = std::get_if<T>(&r)) return found;
    return nullptr;
  }
  template <typename T>
  size_t count_records() const {
    size_t n = 0;
    for (const DeviceRecord& r : records) n += std::holds_alternative<T>(r);
    return n;
  }
};

class CallQueue {
 public:
  // Adds an event; one with the correlation id and kind of a pending call is
  // the other half of that call and is merged into it (returns true).
  bool add(const ApiEvent& event, std::span<const uint64_t> payload);
  // Gives a record to the pending call with its correlation id, or keeps it
  // as an orphan stamped with `now_ns` (nullopt: stamped at the next sweep).
  // A record of a call written less than a wait ago (a late record, or a
  // confirmation nobody waited for) is discarded.
  void add_record(DeviceRecord record, std::optional<int64_t> now_ns);

  bool empty() const { return calls_.empty(); }
  // The pending call with the lowest seq.
  Call& head() { return calls_.begin()->second; }
  // Every pending call, by seq (for reading ahead of the head).
  std::map<uint64_t, Call>& pending() { return calls_; }
  // Removes the head once written; its correlation id is remembered for a
  // wait, so records still on their way are recognised.
  void pop_head(std::optional<int64_t> now_ns);

  // Drops orphans older than `wait_ns` whose correlation id is below every
  // pending call's (so their call was never recorded, or written long ago);
  // returns how many records were dropped. Forgets correlation ids written
  // more than `wait_ns` ago.
  uint64_t drop_stale_orphans(int64_t now_ns, int64_t wait_ns);
  uint64_t drop_all_orphans();
  size_t orphan_count() const { return orphans_.size(); }

 private:
  struct Orphans {
    std::optional<int64_t> arrived;
    std::vector<DeviceRecord> records;
  };
  static void merge(Call& call, const ApiEvent& event, std::span<const uint64_t> payload);
  void forget_correlation(uint64_t correlation, uint64_t seq);

  std::map<uint64_t, Call> calls_;                                   // by seq
  std::map<uint64_t, std::vector<uint64_t>> by_correlation_;         // seqs of pending calls
  std::map<uint64_t, Orphans> orphans_;                              // by correlation
  std::deque<std::pair<uint64_t, std::optional<int64_t>>> written_;  // (correlation, when), oldest first
  std::unordered_set<uint64_t> recently_written_;
  uint64_t max_correlation_ = 0;
};

}  // namespace racetrack::capture
