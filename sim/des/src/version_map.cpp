#include "racetrack/des/version_map.h"

namespace racetrack::des {

void write_version(VersionMap& map, uint64_t lo, uint64_t hi, uint32_t writer, bool tainted) {
  auto it = map.lower_bound(lo);
  // The common case, a tensor written again: one segment starts at lo and
  // reaches at least hi (segments are disjoint, so none before it overlaps).
  if (it != map.end() && it->first == lo && it->second.hi >= hi) {
    if (it->second.hi > hi) map.emplace_hint(std::next(it), hi, it->second);
    it->second = VersionSegment{hi, writer, tainted};
    return;
  }
  // Else trim or split what overlaps [lo, hi), then insert one segment.
  if (it != map.begin()) {
    auto prev = std::prev(it);
    if (prev->second.hi > lo) {
      const VersionSegment old = prev->second;
      prev->second.hi = lo;
      if (old.hi > hi) map.emplace(hi, VersionSegment{old.hi, old.writer, old.tainted});
    }
  }
  it = map.lower_bound(lo);
  while (it != map.end() && it->first < hi) {
    if (it->second.hi > hi) {
      const VersionSegment rest = it->second;
      map.erase(it);
      map.emplace(hi, rest);
      break;
    }
    it = map.erase(it);
  }
  map.emplace(lo, VersionSegment{hi, writer, tainted});
}

}  // namespace racetrack::des
