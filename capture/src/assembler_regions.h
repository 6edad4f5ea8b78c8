// The live address ranges the trace assembler knows: allocations (driver,
// pool, pinned host, VMM, module globals) and ranges named by racetrack
// labels. Like the checker, it looks annotation ranges up first, then
// framework blocks (tensors), then allocations: the finest answer wins. Freed
// regions are forgotten: memory follows the live set, not the capture length.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "assembler_output.h"

namespace racetrack::capture {

struct LiveRegion {
  uint32_t id = 0;
  uint64_t base = 0;
  uint64_t size = 0;
  v1::AddressSpace space = v1::SPACE_DEVICE;
  v1::RegionOrigin origin = v1::ORIGIN_UNKNOWN;
  uint32_t device = 0;
  uint64_t generation = 0;  // TraceOutput::generation() when defined

  bool contains(uint64_t lo, uint64_t bytes) const { return base <= lo && lo - base + bytes <= size; }
};

class RegionTable {
 public:
  explicit RegionTable(TraceOutput& out) : out_(out) {}

  // Defines a region in the pending chunk and makes it live. `alloc_seq` is
  // the seq of the Alloc op about to be written, 0 for a region that lives
  // from the start of the trace (module globals, labels).
  LiveRegion add(v1::AddressSpace space, uint64_t base, uint64_t size, uint32_t device,
                 v1::RegionOrigin origin, uint64_t alloc_seq, uint32_t label = 0);
  // The allocation starting at `base`, removed from the live set.
  std::optional<LiveRegion> remove_at(uint64_t base);
  // The framework block that is exactly [base, base + bytes), removed.
  std::optional<LiveRegion> remove_block(uint64_t base, uint64_t bytes);
  // Every allocation of `origin` inside [lo, lo + bytes), removed.
  std::vector<LiveRegion> remove_inside(uint64_t lo, uint64_t bytes, v1::RegionOrigin origin);

  // The finest live region holding all of [lo, lo + bytes), or nullptr.
  const LiveRegion* containing(uint64_t lo, uint64_t bytes) const;
  // The label or allocation that is exactly [base, base + bytes), or nullptr.
  const LiveRegion* exactly(uint64_t base, uint64_t bytes) const;
  // Sets the label of a region still in the pending chunk; false once the
  // chunk that defined it is written.
  bool label_if_pending(const LiveRegion& region, uint32_t label);

 private:
  using Map = std::map<uint64_t, LiveRegion>;  // by base
  static const LiveRegion* find_in(const Map& map, uint64_t lo, uint64_t bytes);

  TraceOutput& out_;
  Map& map_for(v1::RegionOrigin origin);
  Map allocations_;
  Map blocks_;  // framework allocator blocks: inside allocations, may share their base
  Map annotations_;
  uint32_t count_ = 0;
};

}  // namespace racetrack::capture
