#include "racetrack/race/inferred_blocks.h"

#include <algorithm>

namespace racetrack::race {

InferredBlocks::Boundaries& InferredBlocks::of(uint32_t region) {
  if (!last_ || last_region_ != region) {
    last_ = &boundaries_[region];  // unordered_map nodes stay put
    last_region_ = region;
  }
  return *last_;
}

size_t InferredBlocks::insert(Boundaries& b, uint64_t at) {
  const auto it = std::lower_bound(b.begin(), b.end(), at);
  const auto position = static_cast<size_t>(it - b.begin());
  if (it == b.end() || *it != at) {
    b.insert(it, at);
    ++generation_;
  }
  return position;
}

void InferredBlocks::add_boundary(uint32_t region, uint64_t at) {
  Known& known = known_[(at >> 4 ^ at >> 14 ^ region) % known_.size()];
  if (known.region == region && known.at == at && known.forgets == forgets_) return;
  insert(of(region), at);
  known = {region, at, forgets_};
}

InferredBlocks::Mark InferredBlocks::add_pointer(uint32_t region, uint64_t p) {
  Recent& recent = recent_[(p >> 4 ^ p >> 14 ^ region) % recent_.size()];
  if (recent.region == region && recent.mark.boundaries && recent.mark.at == p &&
      recent.mark.generation == generation_)
    return recent.mark;
  Boundaries& b = of(region);
  const size_t position = insert(b, p);
  recent = {region, Mark{&b, p, position, generation_}};
  return recent.mark;
}

uint64_t InferredBlocks::block_end(const Mark& m, uint64_t region_end) const {
  const Boundaries& b = *m.boundaries;
  const auto next = m.generation == generation_ ? b.begin() + static_cast<long>(m.position) + 1
                                                : std::upper_bound(b.begin(), b.end(), m.at);
  return next == b.end() ? region_end : std::min(*next, region_end);
}

void InferredBlocks::forget(uint32_t region) {
  if (last_region_ == region) last_ = nullptr;
  ++generation_;  // recent marks may point into the forgotten boundaries
  ++forgets_;
  boundaries_.erase(region);
}

size_t InferredBlocks::boundary_count() const {
  size_t n = 0;
  for (const auto& [region, b] : boundaries_) n += b.size();
  return n;
}

}  // namespace racetrack::race
