// Candidate blocks of driver allocations, inferred from the trace itself
// (docs/check.md, "Extents from pointers"): every argument pointer and every
// exact range end (copy, memset, recorded access) seen inside a live
// allocation is a boundary, and a pointer p touches [p, the next boundary).
// A seam, where one exact range ends and another begins and no pointer
// points, is not a block's end: two copies filling the halves of one tensor
// (C10's split reload) leave one block.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace racetrack::race {

class InferredBlocks {
 public:
  // Sorted and unique. A vector, not a set: after the first iterations
  // nearly every pointer is a boundary already, and a binary search over
  // contiguous memory finds it several times faster than a tree.
  using Boundaries = std::vector<uint64_t>;
  // What was seen at each boundary, in the order of Boundaries.
  enum Kind : uint8_t { kPointer = 1, kRangeStart = 2, kRangeEnd = 4 };
  struct Partition {
    Boundaries at;
    std::vector<uint8_t> kinds;
  };
  // A pointer made a boundary; its block's end is read once every pointer
  // of the launch is in. Until a boundary is added anywhere, the pointer's
  // position stays valid and saves the second search.
  struct Mark {
    const Partition* partition = nullptr;
    uint64_t at = 0;
    size_t position = 0;
    uint64_t generation = 0;
  };

  // An exact range [lo, hi) seen inside the allocation.
  void add_range(uint32_t region, uint64_t lo, uint64_t hi);
  Mark add_pointer(uint32_t region, uint64_t p);
  struct Block {
    uint64_t end = 0;
    uint64_t first_seam = 0;  // the first seam the block reaches over, 0 if none
  };
  // The block starting at the marked pointer: up to the next boundary that
  // is not a seam, or the allocation's end.
  Block block(const Mark& m, uint64_t region_end) const;
  // The allocation was freed: a new one at its addresses starts unpartitioned.
  void forget(uint32_t region);
  size_t boundary_count() const;

 private:
  Partition& of(uint32_t region);
  // Adds `at` if new, with `kind` seen there; returns its position.
  size_t insert(Partition& p, uint64_t at, uint8_t kind);
  void add_boundary(uint32_t region, uint64_t at, uint8_t kind);

  std::unordered_map<uint32_t, Partition> boundaries_;
  uint32_t last_region_ = 0;  // a one-entry cache: kernels touch few allocations
  Partition* last_ = nullptr;
  uint64_t generation_ = 0;  // boundaries added (or forgotten) so far
  // Launches pass the same pointers iteration after iteration: the marks of
  // recent ones, valid while no boundary was added since.
  struct Recent {
    uint32_t region = 0;
    Mark mark;
  };
  std::array<Recent, 1024> recent_{};
  // Copies and memsets give the same range ends every iteration: those
  // known to be boundaries already, valid until an allocation is forgotten.
  struct Known {
    uint32_t region = 0;
    uint8_t kind = 0;
    uint64_t at = 0, forgets = 0;
  };
  std::array<Known, 1024> known_{};
  uint64_t forgets_ = 0;
};

}  // namespace racetrack::race
