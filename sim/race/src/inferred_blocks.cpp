#include "racetrack/race/inferred_blocks.h"

#include <algorithm>

#include "address_slot.h"

namespace racetrack::race {

InferredBlocks::Partition& InferredBlocks::of(uint32_t region) {
  if (!last_ || last_region_ != region) {
    last_ = &boundaries_[region];  // unordered_map nodes stay put
    last_region_ = region;
  }
  return *last_;
}

size_t InferredBlocks::insert(Partition& p, uint64_t at, uint8_t kind) {
  const auto it = std::lower_bound(p.at.begin(), p.at.end(), at);
  const auto position = static_cast<size_t>(it - p.at.begin());
  if (it == p.at.end() || *it != at) {
    p.at.insert(it, at);
    p.kinds.insert(p.kinds.begin() + static_cast<long>(position), kind);
    ++generation_;
  } else {
    p.kinds[position] |= kind;  // marks keep their positions: no new generation
  }
  return position;
}

void InferredBlocks::add_boundary(uint32_t region, uint64_t at, uint8_t kind) {
  Known& known = known_[address_slot(at, uint64_t{region} << 3 | kind, known_.size())];
  if (known.region == region && known.at == at && known.kind == kind && known.forgets == forgets_) return;
  insert(of(region), at, kind);
  known = {region, kind, at, forgets_};
}

void InferredBlocks::add_range(uint32_t region, uint64_t lo, uint64_t hi) {
  add_boundary(region, lo, kRangeStart);
  add_boundary(region, hi, kRangeEnd);
}

InferredBlocks::Mark InferredBlocks::add_pointer(uint32_t region, uint64_t p) {
  Recent& recent = recent_[address_slot(p, region, recent_.size())];
  if (recent.region == region && recent.mark.partition && recent.mark.at == p &&
      recent.mark.generation == generation_)
    return recent.mark;
  Partition& partition = of(region);
  const size_t position = insert(partition, p, kPointer);
  recent = {region, Mark{&partition, p, position, generation_}};
  return recent.mark;
}

InferredBlocks::Block InferredBlocks::block(const Mark& m, uint64_t region_end) const {
  const Partition& p = *m.partition;
  size_t next = m.generation == generation_
                    ? m.position + 1
                    : static_cast<size_t>(std::upper_bound(p.at.begin(), p.at.end(), m.at) - p.at.begin());
  constexpr uint8_t kSeam = kRangeStart | kRangeEnd;
  Block b;
  for (; next < p.at.size() && p.kinds[next] == kSeam; ++next)
    if (!b.first_seam) b.first_seam = p.at[next];
  b.end = next == p.at.size() ? region_end : std::min(p.at[next], region_end);
  if (b.first_seam >= b.end) b.first_seam = 0;
  return b;
}

void InferredBlocks::forget(uint32_t region) {
  if (last_region_ == region) last_ = nullptr;
  ++generation_;  // recent marks may point into the forgotten boundaries
  ++forgets_;
  boundaries_.erase(region);
}

size_t InferredBlocks::boundary_count() const {
  size_t n = 0;
  for (const auto& [region, p] : boundaries_) n += p.at.size();
  return n;
}

}  // namespace racetrack::race
