#include "racetrack/race/inferred_blocks.h"

#include <algorithm>

namespace racetrack::race {

uint64_t InferredBlocks::block_end(uint32_t region, uint64_t p, uint64_t region_end) const {
  auto found = boundaries_.find(region);
  if (found == boundaries_.end()) return region_end;
  auto next = found->second.upper_bound(p);
  return next == found->second.end() ? region_end : std::min(*next, region_end);
}

size_t InferredBlocks::boundary_count() const {
  size_t n = 0;
  for (const auto& [region, set] : boundaries_) n += set.size();
  return n;
}

}  // namespace racetrack::race
