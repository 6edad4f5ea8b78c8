// Which op last wrote each byte range of memory: the versions value tracking
// compares (values.h), in the sequential reference and in a run alike.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>

#include "racetrack/race/access.h"

namespace racetrack::des {

inline constexpr uint32_t kInitial = UINT32_MAX;  // bytes no op has written

// In a view of memory, bytes [lo, hi) were last written by op `writer`
// (kInitial: by nobody).
struct ExpectedWriter {
  uint64_t lo, hi;
  uint32_t writer;
};

// One space's disjoint segments, by start.
struct VersionSegment {
  uint64_t hi;
  uint32_t writer;
  bool tainted;
};
using VersionMap = std::map<uint64_t, VersionSegment>;

// Every space's segments; consecutive accesses mostly stay in one space, so
// the last one found is kept.
struct VersionSpaces {
  std::map<race::SpaceKey, VersionMap> maps;
  race::SpaceKey last_space = 0;
  VersionMap* last = nullptr;
  VersionMap& operator[](race::SpaceKey space) {
    if (!last || space != last_space) {
      last = &maps[space];
      last_space = space;
    }
    return *last;
  }
};

// Stamps [lo, hi) as written by `writer`.
void write_version(VersionMap& map, uint64_t lo, uint64_t hi, uint32_t writer, bool tainted);

// Appends the segments of `map` over [lo, hi) to `out`, gaps as kInitial;
// sets *any_tainted when one of them is tainted.
template <typename Out>
void view_versions(const VersionMap& map, uint64_t lo, uint64_t hi, Out& out, bool* any_tainted) {
  uint64_t cursor = lo;
  auto it = map.upper_bound(lo);
  if (it != map.begin() && std::prev(it)->second.hi > lo) --it;
  for (; it != map.end() && it->first < hi; ++it) {
    if (it->first > cursor) out.push_back({cursor, it->first, kInitial});
    const uint64_t a = std::max(cursor, it->first), b = std::min(hi, it->second.hi);
    if (a < b) {
      out.push_back({a, b, it->second.writer});
      if (any_tainted && it->second.tainted) *any_tainted = true;
      cursor = b;
    }
  }
  if (cursor < hi) out.push_back({cursor, hi, kInitial});
}

}  // namespace racetrack::des
