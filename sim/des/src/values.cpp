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

HazardOps hazard_ops(const Program& p, const race::Hazard& h) {
  HazardOps ops;
  ops.first = ops.first_version = ops.first_reader = ops.held =
      static_cast<uint32_t>(p.index_of(h.first.seq));
  ops.second = static_cast<uint32_t>(p.index_of(h.second.seq));
  if (!h.first.external_agent) return ops;
  ops.first_version = static_cast<uint32_t>(p.index_of(h.first.external_seq));
  if (h.first.seq != h.first.external_seq) return ops;  // first is the observer
  // Touched in flight: the declaration's observer, if any, lands it.
  for (const ExternalLanding& e : p.externals)
    if (e.declared == ops.first_version && e.access.lo < h.hi && h.lo < e.access.hi && e.observer != kNever)
      ops.first_reader = ops.held = e.observer;
  return ops;
}

bool shows_hazard(const Mismatch& m, const HazardOps& ops, const race::Hazard& h) {
  if (!h.first.external_agent) return shows_hazard(m, ops.first, ops.second, h);
  if (m.space != h.space || m.hi <= h.lo || h.hi <= m.lo) return false;
  const uint32_t a = ops.first_version, b = ops.second;
  const bool raw = m.reader == b && m.expected == a;
  const bool war = m.reader == ops.first_reader && m.observed != kInitial && m.observed >= b;
  const bool waw = (m.expected == a && m.observed == b) || (m.expected == b && m.observed == a);
  return raw || war || waw;
}

void ValueTracker::write(Map& map, uint64_t lo, uint64_t hi, uint32_t writer, bool tainted) {
  auto it = map.lower_bound(lo);
  // The common case, a tensor written again: one segment starts at lo and
  // reaches at least hi (segments are disjoint, so none before it overlaps).
  if (it != map.end() && it->first == lo && it->second.hi >= hi) {
    if (it->second.hi > hi) map.emplace_hint(std::next(it), hi, it->second);
    it->second = Segment{hi, writer, tainted};
    return;
  }
  // Else trim or split what overlaps [lo, hi), then insert one segment.
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

template <typename Out>
void ValueTracker::view(const Map& map, uint64_t lo, uint64_t hi, Out& out, bool* any_tainted) {
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
  // External accesses land at their declarations (external_landings.h).
  std::vector<uint32_t> by_declaration(p.externals.size());
  for (uint32_t k = 0; k < by_declaration.size(); ++k) by_declaration[k] = k;
  std::stable_sort(by_declaration.begin(), by_declaration.end(),
                   [&](uint32_t x, uint32_t y) { return p.externals[x].declared < p.externals[y].declared; });
  std::vector<std::pair<uint32_t, uint32_t>> external_range(p.externals.size());
  auto landing = by_declaration.begin();
  for (uint32_t i = 0; i < p.ops.size(); ++i) {
    for (; retiring != retirements.end() && retiring->op == i; ++retiring) retire(*retiring);
    for (; landing != by_declaration.end() && p.externals[*landing].declared == i; ++landing) {
      const SimAccess& acc = p.externals[*landing].access;
      const auto begin = static_cast<uint32_t>(external_expected_.size());
      if (acc.reads) view(reference_final_[acc.space], acc.lo, acc.hi, external_expected_, nullptr);
      external_range[*landing] = {begin, static_cast<uint32_t>(external_expected_.size())};
      if (acc.writes) write(reference_final_[acc.space], acc.lo, acc.hi, i, false);
    }
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
  // Contiguous by external index, so a range is [begin[k], begin[k + 1]).
  std::vector<Expected> ordered;
  external_begin_.assign(p.externals.size() + 1, 0);
  for (uint32_t k = 0; k < p.externals.size(); ++k) {
    external_begin_[k] = static_cast<uint32_t>(ordered.size());
    ordered.insert(ordered.end(), external_expected_.begin() + external_range[k].first,
                   external_expected_.begin() + external_range[k].second);
  }
  external_begin_[p.externals.size()] = static_cast<uint32_t>(ordered.size());
  external_expected_ = std::move(ordered);
}

void ValueTracker::compare(uint32_t reader, const SimAccess& acc, const Expected* e, const Expected* e_end,
                           bool& tainted) {
  scratch_.clear();
  view(memory_[acc.space], acc.lo, acc.hi, scratch_, &tainted);
  // Walk observed and expected segments together, byte range by range.
  for (const Expected& seen : scratch_) {
    for (uint64_t lo = seen.lo; lo < seen.hi && e != e_end;) {
      while (e != e_end && e->hi <= lo) ++e;
      if (e == e_end) break;
      const uint64_t hi = std::min(seen.hi, e->hi);
      if (seen.writer != e->writer) {
        tainted = true;
        Mismatch* last = mismatches_.empty() ? nullptr : &mismatches_.back();
        if (last && last->reader == reader && last->expected == e->writer && last->observed == seen.writer &&
            last->hi == lo)
          last->hi = hi;
        else
          mismatches_.push_back({reader, e->writer, seen.writer, acc.space, lo, hi});
      }
      lo = hi;
    }
  }
}

void ValueTracker::on_start(uint32_t i) {
  const SimOp& op = p_.ops[i];
  bool tainted = false;
  for (uint32_t a = op.accesses; a < op.accesses + op.access_count; ++a) {
    const SimAccess& acc = p_.accesses[a];
    if (!acc.reads) continue;
    compare(i, acc, expected_.data() + expected_begin_[a], expected_.data() + expected_begin_[a + 1],
            tainted);
  }
  // An external agent reads at the latest point: its observer's start.
  const auto [first, last] = p_.observed_at(i);
  for (uint32_t k = first; k < last; ++k) {
    const SimAccess& acc = p_.externals[k].access;
    if (!acc.reads) continue;
    const auto [e, e_end] = expected_external(k);
    bool external_tainted = false;  // what the agent read leaves the GPU's ops
    compare(i, acc, e, e_end, external_tainted);
  }
  if (tainted) tainted_[i] = true;
}

void ValueTracker::on_end(uint32_t i) {
  const SimOp& op = p_.ops[i];
  for (uint32_t a = op.accesses; a < op.accesses + op.access_count; ++a) {
    const SimAccess& acc = p_.accesses[a];
    if (acc.writes) write(memory_[acc.space], acc.lo, acc.hi, i, tainted_[i]);
  }
  // An external agent's write lands at the latest point, its observer's end,
  // with its declaration's version.
  const auto [first, last] = p_.observed_at(i);
  for (uint32_t k = first; k < last; ++k) {
    const ExternalLanding& e = p_.externals[k];
    if (e.access.writes) write(memory_[e.access.space], e.access.lo, e.access.hi, e.declared, false);
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
  for (const auto& [space, reference] : reference_final_.maps) {
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
