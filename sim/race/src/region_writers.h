// The streams that have written each region so far, for the explanation
// "waited on one producer of R only" (catalogue shape C10, wrong_wait.h).
// The check notes every op's writes here, where its accesses are already
// resolved, and hands the set to each hazard it reports; the fix verifier
// then need not read every access of the trace again.
#pragma once

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "racetrack/traces/spill_array.h"

namespace racetrack::race {

class RegionWriters {
 public:
  // Stream `stream` (not 0) wrote region `region` (not 0).
  void note(uint32_t region, uint32_t stream);
  // The streams that wrote `region` so far, in id order.
  std::vector<uint32_t> of(uint32_t region) const;

 private:
  // A stream mask by region id (ids are dense from 1, and never reused):
  // bit s for stream s below 64; bit 0 for "some stream from 64 up", listed
  // in high_.
  SpillArray<uint64_t> masks_;
  std::set<std::pair<uint32_t, uint32_t>> high_;  // (region, stream)
};

}  // namespace racetrack::race
