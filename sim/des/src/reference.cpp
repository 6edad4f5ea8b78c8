#include "racetrack/des/reference.h"

#include <algorithm>

namespace racetrack::des {

SequentialReference::SequentialReference(const Program& p) {
  // Each op reads, then writes, where the baseline puts the bytes
  // (SimAccess::reference_space).
  expected_begin_.resize(p.accesses.size() + 1, 0);
  std::vector<Retirement> retirements = p.retirements;
  std::sort(retirements.begin(), retirements.end(),
            [](const Retirement& x, const Retirement& y) { return x.op < y.op; });
  auto retiring = retirements.begin();
  std::vector<ExpectedWriter> scratch;
  // External accesses land at their declarations (external_landings.h).
  std::vector<uint32_t> by_declaration(p.externals.size());
  for (uint32_t k = 0; k < by_declaration.size(); ++k) by_declaration[k] = k;
  std::stable_sort(by_declaration.begin(), by_declaration.end(),
                   [&](uint32_t x, uint32_t y) { return p.externals[x].declared < p.externals[y].declared; });
  std::vector<std::pair<uint32_t, uint32_t>> external_range(p.externals.size());
  auto landing = by_declaration.begin();
  for (uint32_t i = 0; i < p.ops.size(); ++i) {
    for (; retiring != retirements.end() && retiring->op == i; ++retiring) retire(*retiring, scratch);
    for (; landing != by_declaration.end() && p.externals[*landing].declared == i; ++landing) {
      const SimAccess& acc = p.externals[*landing].access;
      const auto begin = static_cast<uint32_t>(external_expected_.size());
      if (acc.reads) view_versions(final_[acc.space], acc.lo, acc.hi, external_expected_, nullptr);
      external_range[*landing] = {begin, static_cast<uint32_t>(external_expected_.size())};
      if (acc.writes) write_version(final_[acc.space], acc.lo, acc.hi, i, false);
    }
    const SimOp& op = p.ops[i];
    for (uint32_t a = op.accesses; a < op.accesses + op.access_count; ++a) {
      expected_begin_[a] = static_cast<uint32_t>(expected_.size());
      const SimAccess& acc = p.accesses[a];
      if (acc.reads) view_versions(final_[acc.reference_space], acc.lo, acc.hi, expected_, nullptr);
    }
    for (uint32_t a = op.accesses; a < op.accesses + op.access_count; ++a) {
      const SimAccess& acc = p.accesses[a];
      if (acc.writes) write_version(final_[acc.reference_space], acc.lo, acc.hi, i, false);
    }
  }
  expected_begin_[p.accesses.size()] = static_cast<uint32_t>(expected_.size());
  // Contiguous by external index, so a range is [begin[k], begin[k + 1]).
  std::vector<ExpectedWriter> ordered;
  external_begin_.assign(p.externals.size() + 1, 0);
  for (uint32_t k = 0; k < p.externals.size(); ++k) {
    external_begin_[k] = static_cast<uint32_t>(ordered.size());
    ordered.insert(ordered.end(), external_expected_.begin() + external_range[k].first,
                   external_expected_.begin() + external_range[k].second);
  }
  external_begin_[p.externals.size()] = static_cast<uint32_t>(ordered.size());
  external_expected_ = std::move(ordered);
}

void SequentialReference::retire(const Retirement& r, std::vector<ExpectedWriter>& scratch) {
  scratch.clear();
  view_versions(final_[r.space], r.lo, r.hi, scratch, nullptr);
  VersionMap& own = final_[r.retired];
  for (const ExpectedWriter& e : scratch)
    if (e.writer != kInitial) write_version(own, e.lo, e.hi, e.writer, false);
}

}  // namespace racetrack::des
