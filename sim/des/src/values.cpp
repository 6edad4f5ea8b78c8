#include "racetrack/des/values.h"

#include <algorithm>

#include "captured_addresses.h"

namespace racetrack::des {

bool shows_hazard(const Mismatch& m, uint32_t a, uint32_t b, const race::Hazard& h) {
  if (m.space != h.space || m.hi <= h.lo || h.hi <= m.lo) return false;
  if (h.second.graph_lifetime == race::GraphLifetime::kCapturedFreed) {
    // a freed the region b's captured address meant: b read bytes a later
    // owner wrote (the baseline keeps the freed region's own), or b's write
    // landed on bytes the later owner holds.
    auto later = [a](uint32_t op) { return op != kInitial && op > a; };
    return (m.reader == b && later(m.observed) && !later(m.expected)) ||
           (m.observed == b && later(m.expected) && m.expected != b);
  }
  const bool raw = m.reader == b && m.expected == a;
  const bool war = m.reader == a && m.observed != kInitial && m.observed >= b;
  const bool waw = (m.expected == a && m.observed == b) || (m.expected == b && m.observed == a);
  return raw || war || waw;
}

void ValueTracker::write(Map& map, uint64_t lo, uint64_t hi, uint32_t writer, bool tainted) {
  // Trim or split what overlaps [lo, hi), then insert one segment.
  auto it = map.lower_bound(lo);
  if (it != map.begin()) {
    auto prev = std::prev(it);
    if (prev->second.hi > lo) {
      const Segment old = prev->second;
      prev->second.hi = lo;
      if (old.hi > hi) map.emplace(hi, Segment{old.hi, old.writer, old.tainted});
    }
  }
  it = map.lower_bound(lo);
  while (it != map.end() && it->first < hi) {
    if (it->second.hi > hi) {
      const Segment rest = it->second;
      map.erase(it);
      map.emplace(hi, rest);
      break;
    }
    it = map.erase(it);
  }
  map.emplace(lo, Segment{hi, writer, tainted});
}

void ValueTracker::view(const Map& map, uint64_t lo, uint64_t hi, std::vector<Expected>& out,
                        bool* any_tainted) {
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

ValueTracker::ValueTracker(const Program& p) : p_(p), tainted_(p.ops.size(), false) {
  // The sequential reference: each op reads, then writes, in submission
  // order, where the baseline puts the bytes (SimAccess::reference_space).
  expected_begin_.resize(p.accesses.size() + 1, 0);
  std::vector<Retirement> retirements = p.retirements;
  std::sort(retirements.begin(), retirements.end(),
            [](const Retirement& x, const Retirement& y) { return x.op < y.op; });
  auto retiring = retirements.begin();
  for (uint32_t i = 0; i < p.ops.size(); ++i) {
    for (; retiring != retirements.end() && retiring->op == i; ++retiring) retire(*retiring);
    const SimOp& op = p.ops[i];
    for (uint32_t a = op.accesses; a < op.accesses + op.access_count; ++a) {
      expected_begin_[a] = static_cast<uint32_t>(expected_.size());
      const SimAccess& acc = p.accesses[a];
      if (acc.reads) view(reference_final_[acc.reference_space], acc.lo, acc.hi, expected_, nullptr);
    }
    for (uint32_t a = op.accesses; a < op.accesses + op.access_count; ++a) {
      const SimAccess& acc = p.accesses[a];
      if (acc.writes) write(reference_final_[acc.reference_space], acc.lo, acc.hi, i, false);
    }
  }
  expected_begin_[p.accesses.size()] = static_cast<uint32_t>(expected_.size());
}

void ValueTracker::on_start(uint32_t i) {
  const SimOp& op = p_.ops[i];
  bool tainted = false;
  for (uint32_t a = op.accesses; a < op.accesses + op.access_count; ++a) {
    const SimAccess& acc = p_.accesses[a];
    if (!acc.reads) continue;
    scratch_.clear();
    view(memory_[acc.space], acc.lo, acc.hi, scratch_, &tainted);
    // Walk observed and expected segments together, byte range by range.
    const Expected* e = expected_.data() + expected_begin_[a];
    const Expected* e_end = expected_.data() + expected_begin_[a + 1];
    for (const Expected& seen : scratch_) {
      for (uint64_t lo = seen.lo; lo < seen.hi && e != e_end;) {
        while (e != e_end && e->hi <= lo) ++e;
        if (e == e_end) break;
        const uint64_t hi = std::min(seen.hi, e->hi);
        if (seen.writer != e->writer) {
          tainted = true;
          Mismatch* last = mismatches_.empty() ? nullptr : &mismatches_.back();
          if (last && last->reader == i && last->expected == e->writer && last->observed == seen.writer &&
              last->hi == lo)
            last->hi = hi;
          else
            mismatches_.push_back({i, e->writer, seen.writer, acc.space, lo, hi});
        }
        lo = hi;
      }
    }
  }
  if (tainted) tainted_[i] = true;
}

void ValueTracker::on_end(uint32_t i) {
  const SimOp& op = p_.ops[i];
  for (uint32_t a = op.accesses; a < op.accesses + op.access_count; ++a) {
    const SimAccess& acc = p_.accesses[a];
    if (acc.writes) write(memory_[acc.space], acc.lo, acc.hi, i, tainted_[i]);
  }
}

// The freed region's bytes of its own, as it left them: copied into its
// retired space.
void ValueTracker::retire(const Retirement& r) {
  scratch_.clear();
  view(reference_final_[r.space], r.lo, r.hi, scratch_, nullptr);
  Map& own = reference_final_[r.retired];
  for (const Expected& e : scratch_)
    if (e.writer != kInitial) write(own, e.lo, e.hi, e.writer, false);
}

void ValueTracker::finish() {
  for (const auto& [space, reference] : reference_final_) {
    if (is_retired_space(space)) continue;  // the baseline's own bytes, not memory
    const Map& actual = memory_[space];
    for (const auto& [lo, seg] : reference) {
      scratch_.clear();
      view(actual, lo, seg.hi, scratch_, nullptr);
      for (const Expected& seen : scratch_)
        if (seen.writer != seg.writer)
          mismatches_.push_back({kInitial, seg.writer, seen.writer, space, seen.lo, seen.hi});
    }
  }
}

uint64_t ValueTracker::tainted_count() const {
  return static_cast<uint64_t>(std::count(tainted_.begin(), tainted_.end(), true));
}

}  // namespace racetrack::des
