#include "region_writers.h"

namespace racetrack::race {

void RegionWriters::note(uint32_t region, uint32_t stream) {
  if (region >= masks_.size()) masks_.resize(region + 1);
  if (stream < 64) {
    masks_[region] |= uint64_t{1} << stream;
    return;
  }
  masks_[region] |= 1;
  high_.insert({region, stream});
}

std::vector<uint32_t> RegionWriters::of(uint32_t region) const {
  std::vector<uint32_t> streams;
  if (region >= masks_.size()) return streams;
  const uint64_t mask = masks_[region];
  for (uint32_t s = 1; s < 64; ++s)
    if (mask >> s & 1) streams.push_back(s);
  if (mask & 1)
    for (auto it = high_.lower_bound({region, 0}); it != high_.end() && it->first == region; ++it)
      streams.push_back(it->second);
  return streams;
}

}  // namespace racetrack::race
