#include "racetrack/diverge/first_divergence.h"

#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace racetrack::diverge {
namespace {

using Key = std::tuple<std::string, std::string, std::string, std::string, uint64_t>;

Key key_of(const ValueRecord& r, const std::string& phase) {
  return {phase, r.module, r.op, r.param, r.n};
}

bool close(double a, double b, const Tolerance& t) {
  return std::abs(a - b) <= t.absolute + t.relative * std::max(std::abs(a), std::abs(b));
}

// The first output that differs (kEqual if none), and which.
std::pair<Difference, size_t> compare_outputs(const ValueRecord& b, const ValueRecord& r,
                                              const Tolerance& t) {
  if (b.out.size() != r.out.size()) return {Difference::kShape, std::min(b.out.size(), r.out.size())};
  for (size_t i = 0; i < b.out.size(); ++i)
    if (const Difference d = compare(b.out[i], r.out[i], t); d != Difference::kEqual) return {d, i};
  return {Difference::kEqual, 0};
}

Divergence describe(const ValueRecord& b, const ValueRecord& r, Difference how, size_t output,
                    const Tolerance& t) {
  Divergence d;
  d.baseline = &b;
  d.run = &r;
  d.how = how;
  d.output = output;
  d.recompute_vs_forward = r.phase == "recompute" && b.phase == "forward";
  d.inputs_comparable = b.in.size() == r.in.size();
  for (size_t i = 0; i < std::min(b.in.size(), r.in.size()); ++i)
    if (compare(b.in[i], r.in[i], t) != Difference::kEqual) d.inputs_differing.push_back(i);
  return d;
}

}  // namespace

const char* difference_name(Difference d) {
  switch (d) {
    case Difference::kEqual: return "equal";
    case Difference::kWithinTolerance: return "within-tolerance";
    case Difference::kValues: return "values";
    case Difference::kZerosVsNonZeros: return "zeros-vs-nonzeros";
    case Difference::kNanInf: return "nan-inf";
    case Difference::kShape: return "shape";
    case Difference::kMissing: return "missing";
  }
  return "?";
}

Difference compare(const Digest& b, const Digest& r, const Tolerance& t) {
  if (b.dtype != r.dtype || b.numel != r.numel) return Difference::kShape;
  if (b.hash == r.hash && b.nan == r.nan && b.inf == r.inf) return Difference::kEqual;
  if (b.nan != r.nan || b.inf != r.inf) return Difference::kNanInf;
  if ((b.absmax == 0) != (r.absmax == 0)) return Difference::kZerosVsNonZeros;
  if (close(b.sum, r.sum, t) && close(b.absmax, r.absmax, t)) return Difference::kWithinTolerance;
  return Difference::kValues;
}

bool is_data_movement(const std::string& op) {
  static const std::set<std::string> kMovement = {"aten::copy_",
                                                  "aten::_to_copy",
                                                  "aten::to",
                                                  "aten::clone",
                                                  "aten::contiguous",
                                                  "aten::empty",
                                                  "aten::empty_like",
                                                  "aten::empty_strided",
                                                  "aten::_copy_from",
                                                  "aten::_copy_from_and_resize",
                                                  "aten::detach",
                                                  "aten::lift_fresh",
                                                  "aten::record_stream",
                                                  "aten::set_",
                                                  "aten::resize_"};
  return kMovement.count(op) > 0;
}

DiffResult first_divergence(const ValuesRecord& baseline, const ValuesRecord& run,
                            const DiffOptions& options) {
  std::map<Key, size_t> by_key;  // baseline records by identity
  for (size_t i = 0; i < baseline.records.size(); ++i)
    if (!is_data_movement(baseline.records[i].op))
      by_key.emplace(key_of(baseline.records[i], baseline.records[i].phase), i);

  DiffResult result;
  // Where each divergence falls in the run's order: twice the run index,
  // plus one for a missing baseline operator after that run operator.
  std::optional<std::pair<uint64_t, Divergence>> first, first_gradient;
  auto consider = [](std::optional<std::pair<uint64_t, Divergence>>& best, uint64_t at, const Divergence& d) {
    if (!best || at < best->first) best = std::pair{at, d};
  };
  std::vector<int64_t> run_index_of(baseline.records.size(), -1);  // own-phase counterparts only
  for (size_t k = 0; k < run.records.size(); ++k) {
    const ValueRecord& r = run.records[k];
    if (is_data_movement(r.op)) {
      ++result.movement_skipped;
      continue;
    }
    auto it = by_key.find(key_of(r, r.phase));
    if (it == by_key.end() && r.phase == "recompute") {
      it = by_key.find(key_of(r, "forward"));  // recomputation repeats the forward operator
      if (it != by_key.end()) ++result.recomputed_matched;
    }
    if (it == by_key.end()) {
      if (!result.extra_in_run++) result.first_extra = &r;
      continue;
    }
    const ValueRecord& b = baseline.records[it->second];
    if (b.phase == r.phase) run_index_of[it->second] = static_cast<int64_t>(k);
    ++result.compared;
    const auto [how, output] = compare_outputs(b, r, options.tolerance);
    const bool diverges = how != Difference::kEqual &&
                          !(options.ignore_within_tolerance && how == Difference::kWithinTolerance);
    if (!diverges) {
      ++result.equal;
      continue;
    }
    const Divergence d = describe(b, r, how, output, options.tolerance);
    consider(first, 2 * k, d);
    if (r.op == "grad") consider(first_gradient, 2 * k, d);
  }
  uint64_t after = 0;  // the run position of the last matched baseline operator so far
  const ValueRecord* after_record = nullptr;
  for (size_t i = 0; i < baseline.records.size(); ++i) {
    const ValueRecord& b = baseline.records[i];
    if (is_data_movement(b.op)) continue;
    if (run_index_of[i] >= 0) {
      if (2 * static_cast<uint64_t>(run_index_of[i]) + 1 >= after) {
        after = 2 * static_cast<uint64_t>(run_index_of[i]) + 1;
        after_record = &run.records[static_cast<size_t>(run_index_of[i])];
      }
      continue;
    }
    if (!result.missing_from_run++) result.first_missing = &b;
    Divergence d;
    d.baseline = &b;
    d.how = Difference::kMissing;
    d.run_before = after_record;
    consider(first, after, d);
    if (b.op == "grad") consider(first_gradient, after, d);
  }
  if (first) result.first = first->second;
  if (first_gradient) result.first_gradient = first_gradient->second;
  return result;
}

}  // namespace racetrack::diverge
