// Candidate blocks of driver allocations, inferred from the trace itself
// (docs/check.md, "Extents from pointers"): every argument pointer and every
// exact range end (copy, memset, recorded access) seen inside a live
// allocation is a boundary, and a pointer p touches [p, the next boundary).
// Boundaries only accumulate while the allocation lives, so the block
// inferred for a pointer never widens as the trace goes on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <unordered_map>

namespace racetrack::race {

class InferredBlocks {
 public:
  // A boundary inside allocation `region`.
  void add_boundary(uint32_t region, uint64_t at) { boundaries_[region].insert(at); }
  // The end of the block starting at pointer `p` of `region` (which ends at
  // `region_end`): the first boundary above p, or the allocation's end.
  uint64_t block_end(uint32_t region, uint64_t p, uint64_t region_end) const;
  // The allocation was freed: a new one at its addresses starts unpartitioned.
  void forget(uint32_t region) { boundaries_.erase(region); }
  size_t boundary_count() const;

 private:
  std::unordered_map<uint32_t, std::set<uint64_t>> boundaries_;
};

}  // namespace racetrack::race
