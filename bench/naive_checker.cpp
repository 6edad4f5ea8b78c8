#include "naive_checker.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <vector>

#include "bench_support.h"
#include "racetrack/hb/happens_before.h"
#include "racetrack/race/access.h"
#include "racetrack/traces/tables.h"

namespace racetrack::bench {
namespace {

struct Held {
  hb::Epoch epoch;
  uint32_t node;
  uint64_t access;  // which access, so a repeated row is not a conflict
  bool writes;
  bool operator==(const Held& o) const { return epoch == o.epoch && access == o.access; }
};

// Per address space: segment start -> (end, the accesses it holds).
struct Segment {
  uint64_t hi;
  std::vector<Held> held;
};
using RangeMap = std::map<uint64_t, Segment>;

// Cuts the segment holding `at` so that a segment starts there.
void split(RangeMap& map, uint64_t at) {
  auto it = map.upper_bound(at);
  if (it == map.begin()) return;
  --it;
  if (it->first == at || it->second.hi <= at) return;
  Segment right{it->second.hi, it->second.held};
  it->second.hi = at;
  map.emplace(at, std::move(right));
}

uint64_t access(RangeMap& map, uint64_t lo, uint64_t hi, const Held& held, const hb::OpOrder& order) {
  split(map, lo);
  split(map, hi);
  uint64_t conflicts = 0, cursor = lo;
  for (auto it = map.lower_bound(lo); cursor < hi;) {
    if (it == map.end() || it->first > cursor) {  // a gap: a fresh segment
      const uint64_t end = it == map.end() ? hi : std::min(hi, it->first);
      it = map.emplace(cursor, Segment{end, {}}).first;
    }
    std::vector<Held>& list = it->second.held;
    for (const Held& h : list)
      if (h.access != held.access && (h.writes || held.writes) && !order.covers(h.epoch, h.node)) ++conflicts;
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](const Held& h) { return order.covers(h.epoch, h.node) && (held.writes || !h.writes); }),
               list.end());
    list.push_back(held);
    cursor = it->second.hi;
    ++it;
  }
  // Merge equal neighbours from the segment before lo to the one at hi.
  auto it = map.lower_bound(lo);
  if (it != map.begin()) --it;
  while (it != map.end() && it->first <= hi) {
    auto next = std::next(it);
    if (next != map.end() && it->second.hi == next->first && it->second.held == next->second.held) {
      it->second.hi = next->second.hi;
      map.erase(next);
    } else {
      it = next;
    }
  }
  return conflicts;
}

}  // namespace

uint64_t naive_check(const std::string& path) {
  auto source = TraceSource::open(path);
  if (!source) fail(source.error());
  TraceTables tables;
  hb::HappensBefore clocks;
  race::AccessResolver resolver;
  std::map<race::SpaceKey, RangeMap> spaces;
  std::vector<race::ResolvedAccess> accesses;
  uint64_t conflicts = 0, access_id = 0;
  for (;;) {
    auto chunk = source->read();
    if (!chunk) fail(chunk.error());
    if (!*chunk) break;
    tables.add(**chunk);
    clocks.add_entities(**chunk);
    resolver.add_entities(**chunk, tables);
    for (const v1::Op& op : (*chunk)->ops()) {
      resolver.on_op(op);
      const hb::OpOrder order = clocks.apply(op);
      resolver.resolve(op, accesses);
      for (const race::ResolvedAccess& a : accesses) {
        const hb::OpOrder at = order.at_node(a.node);
        conflicts += access(spaces[a.space], a.lo, a.hi, Held{at.epoch, a.node, ++access_id, a.writes}, at);
      }
    }
  }
  return conflicts;
}

}  // namespace racetrack::bench
