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
  using Boundaries = std::set<uint64_t>;
  // A pointer made a boundary; its block's end is read once every pointer
  // of the launch is in (iterators of a set survive insertions).
  struct Mark {
    const Boundaries* boundaries = nullptr;
    Boundaries::const_iterator at;
  };

  void add_boundary(uint32_t region, uint64_t at) { of(region).insert(at); }
  Mark add_pointer(uint32_t region, uint64_t p) {
    Boundaries& b = of(region);
    return {&b, b.insert(p).first};
  }
  // The end of the block starting at the marked pointer: the next boundary,
  // or the allocation's end.
  static uint64_t block_end(const Mark& m, uint64_t region_end);
  // The allocation was freed: a new one at its addresses starts unpartitioned.
  void forget(uint32_t region);
  size_t boundary_count() const;

 private:
  Boundaries& of(uint32_t region);

  std::unordered_map<uint32_t, Boundaries> boundaries_;
  uint32_t last_region_ = 0;  // a one-entry cache: kernels touch few allocations
  Boundaries* last_ = nullptr;
};

}  // namespace racetrack::race
