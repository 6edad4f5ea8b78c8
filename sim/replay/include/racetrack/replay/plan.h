// The replay plan: every traced address range laid out in arenas (one per
// address space: device memory of each device, pinned host memory), keeping
// overlaps exactly as traced; sizes scaled down (monotonically, so the
// overlap structure stays) when the footprint exceeds a memory limit.
#pragma once

#include <vector>

#include "racetrack/des/program.h"

namespace racetrack::replay {

// A maximal run of traced bytes that some access touches.
struct Island {
  race::SpaceKey space;
  uint64_t lo, hi;       // trace addresses
  uint64_t arena_base;   // where lo lands in its space's arena
  uint64_t arena_bytes;  // its length in the arena
};

class ArenaPlan {
 public:
  // Stamps an arena may have even without a memory limit: 2^28 (1 GiB of
  // host memory for the host backend's 4-byte stamps).
  static constexpr uint64_t kMaxGranules = uint64_t{1} << 28;

  // `memory_limit` 0: no limit but kMaxGranules.
  static ArenaPlan build(const des::Program& program, uint64_t granule, uint64_t memory_limit);

  // Arena offset of a traced address inside an island of `space`.
  uint64_t offset(race::SpaceKey space, uint64_t address) const;
  uint64_t arena_bytes(race::SpaceKey space) const;
  const std::vector<Island>& islands() const { return islands_; }
  std::vector<race::SpaceKey> spaces() const;
  double scale() const { return scale_; }
  uint64_t granule() const { return granule_; }
  uint64_t traced_bytes() const { return traced_bytes_; }

 private:
  std::vector<Island> islands_;  // sorted by (space, lo)
  double scale_ = 1.0;
  uint64_t granule_ = 64;
  uint64_t traced_bytes_ = 0;
};

}  // namespace racetrack::replay
