#include "racetrack/replay/plan.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace racetrack::replay {
namespace {

// Traced ranges may be as large as the address space: sums saturate.
uint64_t add_sat(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
uint64_t round_up(uint64_t v, uint64_t g) {
  return v % g ? add_sat(v, g - v % g) : v;
}

}  // namespace

ArenaPlan ArenaPlan::build(const des::Program& program, uint64_t granule, uint64_t memory_limit) {
  ArenaPlan plan;
  plan.granule_ = std::max<uint64_t>(granule, 4);
  // Union of all accessed ranges per space, merged as they come, so it
  // holds an entry per island however many accesses the trace has.
  std::map<std::pair<race::SpaceKey, uint64_t>, uint64_t> merged;  // (space, lo) -> hi
  auto add = [&](race::SpaceKey space, uint64_t lo, uint64_t hi) {
    if (hi <= lo) return;
    auto it = merged.upper_bound({space, lo});
    if (it != merged.begin()) {
      const auto prev = std::prev(it);
      if (prev->first.first == space && prev->second >= lo) {  // overlaps or touches the one before
        if (prev->second >= hi) return;                         // already covered: the common case
        lo = prev->first.second;
        it = merged.erase(prev);
      }
    }
    for (; it != merged.end() && it->first.first == space && it->first.second <= hi; it = merged.erase(it))
      hi = std::max(hi, it->second);
    merged.emplace_hint(it, std::make_pair(space, lo), hi);
  };
  for (const auto& a : program.accesses) add(a.space, a.lo, a.hi);
  for (const auto& e : program.externals) add(e.access.space, e.access.lo, e.access.hi);
  for (const auto& [key, hi] : merged) plan.islands_.push_back({key.first, key.second, hi, 0, 0});
  double traced = 0;  // exact enough for the scale where traced_bytes_ saturates
  for (const Island& i : plan.islands_) {
    const uint64_t bytes = add_sat(round_up(i.hi - i.lo, plan.granule_), plan.granule_);
    plan.traced_bytes_ = add_sat(plan.traced_bytes_, bytes);
    traced += static_cast<double>(bytes);
  }
  // With no memory limit the arena still has at most kMaxGranules stamps.
  const uint64_t cap = plan.granule_ > UINT64_MAX / kMaxGranules ? UINT64_MAX : kMaxGranules * plan.granule_;
  const uint64_t limit = memory_limit ? std::min(memory_limit, cap) : cap;
  if (plan.traced_bytes_ > limit) plan.scale_ = static_cast<double>(limit) / traced;
  // Lay islands out per space; a base congruent to lo modulo the granule
  // keeps granule boundaries where the trace has them.
  race::SpaceKey space = UINT32_MAX;
  uint64_t next = 0;
  for (Island& i : plan.islands_) {
    if (i.space != space) {
      space = i.space;
      next = 0;
    }
    const uint64_t g = plan.granule_;
    const uint64_t length =
        plan.scale_ < 1.0 ? static_cast<uint64_t>(std::ceil(static_cast<double>(i.hi - i.lo) * plan.scale_))
                          : i.hi - i.lo;
    i.arena_bytes = std::max(g, round_up(length, g));
    i.arena_base = plan.scale_ < 1.0 ? next : round_up(next, g) + i.lo % g;
    next = i.arena_base + i.arena_bytes + g;
  }
  return plan;
}

uint64_t ArenaPlan::offset(race::SpaceKey space, uint64_t address) const {
  auto it = std::upper_bound(islands_.begin(), islands_.end(), std::make_pair(space, address),
                             [](const std::pair<race::SpaceKey, uint64_t>& k, const Island& i) {
                               return std::tie(k.first, k.second) < std::tie(i.space, i.lo);
                             });
  if (it == islands_.begin()) return 0;
  const Island& i = *std::prev(it);
  if (i.space != space) return 0;
  const uint64_t within = std::min(address, i.hi) - i.lo;
  if (scale_ >= 1.0) return i.arena_base + within;
  return i.arena_base + static_cast<uint64_t>(static_cast<double>(within) * scale_);
}

uint64_t ArenaPlan::arena_bytes(race::SpaceKey space) const {
  uint64_t end = 0;
  for (const Island& i : islands_)
    if (i.space == space) end = std::max(end, i.arena_base + i.arena_bytes + granule_);
  return end;
}

std::vector<race::SpaceKey> ArenaPlan::spaces() const {
  std::vector<race::SpaceKey> out;
  for (const Island& i : islands_)
    if (out.empty() || out.back() != i.space) out.push_back(i.space);
  return out;
}

}  // namespace racetrack::replay
