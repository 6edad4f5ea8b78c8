#include "racetrack/race/shadow_memory.h"

#include <algorithm>

namespace racetrack::race {

ShadowMemory::Map& ShadowMemory::space(SpaceKey key) {
  if (!last_map_ || last_space_ != key) {
    last_map_ = &spaces_[key];  // std::map nodes stay put
    last_space_ = key;
  }
  return *last_map_;
}

ShadowMemory::Map::iterator ShadowMemory::split(Map& map, uint64_t at) {
  auto it = map.upper_bound(at);
  if (it == map.begin()) return it;
  auto holder = std::prev(it);
  if (holder->first == at) return holder;
  if (at >= holder->second.hi) return it;
  Segment right{holder->second.hi, holder->second.entries};
  holder->second.hi = at;
  return map.emplace_hint(it, at, std::move(right));
}

void ShadowMemory::access(SpaceKey key, uint64_t lo, uint64_t hi, const ShadowEntry& entry,
                          const hb::OpOrder& order, std::vector<Conflict>& conflicts) {
  if (lo >= hi) return;
  Map& map = space(key);

  // Walk the covered range from its first segment, filling gaps with fresh
  // segments and cutting the last one at `hi`: one tree search per access.
  uint64_t cursor = lo;
  auto it = split(map, lo);
  auto first = map.end();
  while (cursor < hi) {
    if (it == map.end() || it->first > cursor) {
      const uint64_t gap_end = it == map.end() ? hi : std::min(hi, it->first);
      it = map.emplace_hint(it, cursor, Segment{gap_end, {}});
    } else if (it->second.hi > hi) {
      Segment right{it->second.hi, it->second.entries};
      it->second.hi = hi;
      map.emplace_hint(std::next(it), hi, std::move(right));
    }
    if (first == map.end()) first = it;
    Segment& seg = it->second;
    auto& entries = seg.entries;
    for (const ShadowEntry& earlier : entries) {
      if (earlier.side == entry.side) continue;  // the same access seen again
      const bool conflict = earlier.writes || entry.writes;
      if (conflict && !order.covers(earlier.epoch(), earlier.node))
        conflicts.push_back({earlier.side, it->first, seg.hi});
    }
    // Drop what this access supersedes: ordered before it, and overwritten
    // (a write) or re-read (a plain read after a plain read).
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [&](const ShadowEntry& e) {
                                   if (!order.covers(e.epoch(), e.node)) return false;
                                   return entry.writes || !e.writes;
                                 }),
                  entries.end());
    entries.push_back(entry);
    cursor = seg.hi;
    ++it;
  }

  // Merge equal neighbours across the touched range and its two edges.
  auto cur = first;
  if (cur != map.begin()) --cur;
  for (;;) {
    auto next = std::next(cur);
    if (next == map.end() || next->first > hi) break;
    if (cur->second.hi == next->first && cur->second.entries == next->second.entries) {
      cur->second.hi = next->second.hi;
      map.erase(next);
      continue;
    }
    cur = next;
  }
}

size_t ShadowMemory::segment_count() const {
  size_t n = 0;
  for (const auto& [space, map] : spaces_) n += map.size();
  return n;
}

size_t ShadowMemory::entry_count() const {
  size_t n = 0;
  for (const auto& [space, map] : spaces_)
    for (const auto& [lo, seg] : map) n += seg.entries.size();
  return n;
}

void ShadowMemory::referenced_sides(std::vector<bool>& used) const {
  for (const auto& [space, map] : spaces_)
    for (const auto& [lo, seg] : map)
      for (const ShadowEntry& e : seg.entries) {
        if (used.size() <= e.side) used.resize(e.side + 1, false);
        used[e.side] = true;
      }
}

}  // namespace racetrack::race
