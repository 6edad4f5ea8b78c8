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

ValueTracker::ValueTracker(const Program& p, const SequentialReference& reference)
    : p_(p), reference_(reference), tainted_(p.ops.size(), false) {}

void ValueTracker::compare(uint32_t reader, const SimAccess& acc, const ExpectedWriter* e,
                           const ExpectedWriter* e_end, bool& tainted) {
  scratch_.clear();
  view_versions(memory_[acc.space], acc.lo, acc.hi, scratch_, &tainted);
  // Walk observed and expected segments together, byte range by range.
  for (const ExpectedWriter& seen : scratch_) {
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
    const auto [e, e_end] = reference_.expected(a);
    compare(i, acc, e, e_end, tainted);
  }
  // An external agent reads at the latest point: its observer's start.
  const auto [first, last] = p_.observed_at(i);
  for (uint32_t k = first; k < last; ++k) {
    const SimAccess& acc = p_.externals[k].access;
    if (!acc.reads) continue;
    const auto [e, e_end] = reference_.expected_external(k);
    bool external_tainted = false;  // what the agent read leaves the GPU's ops
    compare(i, acc, e, e_end, external_tainted);
  }
  if (tainted) tainted_[i] = true;
}

void ValueTracker::on_end(uint32_t i) {
  const SimOp& op = p_.ops[i];
  for (uint32_t a = op.accesses; a < op.accesses + op.access_count; ++a) {
    const SimAccess& acc = p_.accesses[a];
    if (acc.writes) write_version(memory_[acc.space], acc.lo, acc.hi, i, tainted_[i]);
  }
  // An external agent's write lands at the latest point, its observer's end,
  // with its declaration's version.
  const auto [first, last] = p_.observed_at(i);
  for (uint32_t k = first; k < last; ++k) {
    const ExternalLanding& e = p_.externals[k];
    if (e.access.writes) write_version(memory_[e.access.space], e.access.lo, e.access.hi, e.declared, false);
  }
}

void ValueTracker::finish() {
  for (const auto& [space, reference] : reference_.final_memory().maps) {
    if (is_retired_space(space)) continue;  // the baseline's own bytes, not memory
    const VersionMap& actual = memory_[space];
    for (const auto& [lo, seg] : reference) {
      scratch_.clear();
      view_versions(actual, lo, seg.hi, scratch_, nullptr);
      for (const ExpectedWriter& seen : scratch_)
        if (seen.writer != seg.writer)
          mismatches_.push_back({kInitial, seg.writer, seen.writer, space, seen.lo, seen.hi});
    }
  }
}

uint64_t ValueTracker::tainted_count() const {
  return static_cast<uint64_t>(std::count(tainted_.begin(), tainted_.end(), true));
}

}  // namespace racetrack::des
