#include "stamps.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "racetrack/des/values.h"
#include "racetrack/replay/plan.h"

namespace racetrack::replay {
namespace {

// The traced bytes of [lo, hi) (whose arena image starts at `a`) that land
// in granule g.
std::pair<uint64_t, uint64_t> traced_span(const ArenaPlan& plan, uint64_t lo, uint64_t hi, uint64_t a,
                                          uint64_t g) {
  auto back = [&](uint64_t y) {
    if (y <= a) return lo;
    const double s = plan.scale();
    // Scaled back, an offset may exceed the range (and uint64_t): clamp first.
    const double scaled = s >= 1.0 ? 0 : std::ceil(static_cast<double>(y - a) / s);
    const uint64_t d = s >= 1.0                                 ? y - a
                       : scaled >= static_cast<double>(hi - lo) ? hi - lo
                                                                : static_cast<uint64_t>(scaled);
    return lo + std::min(d, hi - lo);
  };
  return {back(g * plan.granule()), back((g + 1) * plan.granule())};
}

}  // namespace

std::pair<uint64_t, uint64_t> granule_range(const ArenaPlan& plan, uint32_t space, uint64_t lo, uint64_t hi) {
  const uint64_t g = plan.granule();
  const uint64_t a = plan.offset(space, lo), b = plan.offset(space, hi);
  return {(a + g - 1) / g, (b + g - 1) / g};
}

void add_read_checks(const des::Program& p, const ArenaPlan& plan, const des::SequentialReference& reference,
                     uint32_t op, std::vector<GranuleCheck>& out) {
  auto check = [&](const des::SimAccess& acc,
                   std::pair<const des::ExpectedWriter*, const des::ExpectedWriter*> in) {
    if (!acc.reads) return;
    for (const des::ExpectedWriter* e = in.first; e != in.second; ++e) {
      const auto [g0, g1] = granule_range(plan, acc.space, e->lo, e->hi);
      if (g0 < g1) out.push_back({op, stamp_of(e->writer), acc.space, e->lo, e->hi, g0, g1});
    }
  };
  const des::SimOp& s = p.ops[op];
  for (uint32_t a = s.accesses; a < s.accesses + s.access_count; ++a)
    check(p.accesses[a], reference.expected(a));
  // An external agent reads at the latest point: its observer's start.
  const auto [first, last] = p.observed_at(op);
  for (uint32_t k = first; k < last; ++k) check(p.externals[k].access, reference.expected_external(k));
}

void add_writes(const des::Program& p, const ArenaPlan& plan, uint32_t op, std::vector<GranuleWrite>& out) {
  const des::SimOp& s = p.ops[op];
  for (uint32_t a = s.accesses; a < s.accesses + s.access_count; ++a) {
    const des::SimAccess& acc = p.accesses[a];
    if (!acc.writes) continue;
    const auto [g0, g1] = granule_range(plan, acc.space, acc.lo, acc.hi);
    if (g0 < g1) out.push_back({acc.space, g0, g1});
  }
  // An external agent's write lands at its observer's end, as its declaration.
  const auto [first, last] = p.observed_at(op);
  for (uint32_t k = first; k < last; ++k) {
    const des::ExternalLanding& e = p.externals[k];
    if (!e.access.writes) continue;
    const auto [g0, g1] = granule_range(plan, e.access.space, e.access.lo, e.access.hi);
    if (g0 < g1) out.push_back({e.access.space, g0, g1, stamp_of(e.declared)});
  }
}

void add_granule_mismatch(const ArenaPlan& plan, const des::Mismatch& seen, uint64_t g,
                          std::vector<des::Mismatch>& out) {
  const auto [lo, hi] = traced_span(plan, seen.lo, seen.hi, plan.offset(seen.space, seen.lo), g);
  des::Mismatch* prev = out.empty() ? nullptr : &out.back();
  if (prev && prev->reader == seen.reader && prev->expected == seen.expected &&
      prev->observed == seen.observed && prev->space == seen.space && prev->lo <= lo && prev->hi >= lo)
    prev->hi = std::max(prev->hi, hi);
  else
    out.push_back({seen.reader, seen.expected, seen.observed, seen.space, lo, hi});
}

void mismatches_from_log(const ArenaPlan& plan, const std::vector<GranuleCheck>& checks,
                         std::vector<GranuleMismatch> log, std::vector<des::Mismatch>& out) {
  std::sort(log.begin(), log.end(), [](const GranuleMismatch& a, const GranuleMismatch& b) {
    return std::tie(a.check, a.granule) < std::tie(b.check, b.granule);
  });
  for (const GranuleMismatch& m : log) {
    const GranuleCheck& c = checks.at(m.check);
    add_granule_mismatch(plan, {c.reader, writer_of(c.expected), writer_of(m.observed), c.space, c.lo, c.hi},
                         m.granule, out);
  }
}

// Walks the writes backwards, so the first one to reach a granule is its
// expected writer.
void add_final_mismatches(const des::Program& p, const ArenaPlan& plan, const StampReader& stamp_at,
                          std::vector<des::Mismatch>& out) {
  std::map<uint32_t, std::vector<bool>> settled;
  for (race::SpaceKey space : plan.spaces())
    settled[space].assign(plan.arena_bytes(space) / plan.granule() + 1, false);
  std::vector<des::Mismatch> found;
  // In the baseline an external agent's write lands at its declaration.
  std::multimap<uint32_t, const des::SimAccess*> declared;
  for (const des::ExternalLanding& e : p.externals)
    if (e.access.writes) declared.emplace(e.declared, &e.access);
  std::vector<const des::SimAccess*> writes;
  for (uint32_t op = static_cast<uint32_t>(p.ops.size()); op-- > 0;) {
    const des::SimOp& s = p.ops[op];
    writes.clear();
    for (uint32_t a = s.accesses; a < s.accesses + s.access_count; ++a) writes.push_back(&p.accesses[a]);
    for (auto [it, end] = declared.equal_range(op); it != end; ++it) writes.push_back(it->second);
    for (const des::SimAccess* write : writes) {
      const des::SimAccess& acc = *write;
      // A graph launch's write through a captured address of a freed region
      // lands, in the baseline, on that region's own bytes: it is nobody's
      // last write here (docs/sim.md, "Graph launches").
      if (!acc.writes || acc.reference_space != acc.space) continue;
      std::vector<bool>& done = settled[acc.space];
      const auto [g0, g1] = granule_range(plan, acc.space, acc.lo, acc.hi);
      for (uint64_t g = g0; g < g1; ++g) {
        if (done[g]) continue;
        done[g] = true;
        const uint32_t seen = stamp_at(acc.space, g);
        if (seen != stamp_of(op))
          add_granule_mismatch(plan, {des::kInitial, op, writer_of(seen), acc.space, acc.lo, acc.hi}, g,
                               found);
      }
    }
  }
  out.insert(out.end(), found.begin(), found.end());
}

void sort_mismatches(std::vector<des::Mismatch>& mismatches) {
  std::sort(mismatches.begin(), mismatches.end(), [](const des::Mismatch& a, const des::Mismatch& b) {
    return std::tie(a.reader, a.lo) < std::tie(b.reader, b.lo);
  });
}

}  // namespace racetrack::replay
