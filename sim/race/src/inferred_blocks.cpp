#include "racetrack/race/inferred_blocks.h"

#include <algorithm>
#include <iterator>

namespace racetrack::race {

InferredBlocks::Boundaries& InferredBlocks::of(uint32_t region) {
  if (!last_ || last_region_ != region) {
    last_ = &boundaries_[region];  // unordered_map nodes stay put
    last_region_ = region;
  }
  return *last_;
}

uint64_t InferredBlocks::block_end(const Mark& m, uint64_t region_end) {
  const auto next = std::next(m.at);
  return next == m.boundaries->end() ? region_end : std::min(*next, region_end);
}

void InferredBlocks::forget(uint32_t region) {
  if (last_region_ == region) last_ = nullptr;
  boundaries_.erase(region);
}

size_t InferredBlocks::boundary_count() const {
  size_t n = 0;
  for (const auto& [region, set] : boundaries_) n += set.size();
  return n;
}

}  // namespace racetrack::race
