// The first operator whose values leave the baseline (docs/diff.md): the
// run's operators are matched to the baseline's by identity (phase, module,
// operator, occurrence), a recomputed operator to its forward original, pure
// data movement skipped, and their output digests compared in the order
// the run ran them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "racetrack/diverge/values_record.h"

namespace racetrack::diverge {

enum class Difference {
  kEqual,
  kWithinTolerance,  // the bytes differ; sum and absolute max agree within the tolerance
  kValues,           // the bytes differ beyond the tolerance
  kZerosVsNonZeros,  // one side is all zeros, the other is not
  kNanInf,           // NaN or Inf counts differ
  kShape,            // dtype or element count differ
  kMissing,          // the run never ran the baseline's operator
};
// "equal", "within-tolerance", "values", "zeros-vs-nonzeros", "nan-inf", "shape", "missing".
const char* difference_name(Difference d);

struct Tolerance {
  double relative = 1e-5, absolute = 1e-8;
};
Difference compare(const Digest& baseline, const Digest& run, const Tolerance& t);

struct DiffOptions {
  Tolerance tolerance;
  // Differences within the tolerance are not divergences (GPU runs whose
  // reductions are not bitwise deterministic).
  bool ignore_within_tolerance = false;
};

// One operator of the run against its baseline counterpart.
struct Divergence {
  const ValueRecord* baseline = nullptr;
  const ValueRecord* run = nullptr;  // null when missing
  // When missing: the run's operator after which it should have run (null
  // when it should have come first).
  const ValueRecord* run_before = nullptr;
  size_t output = 0;  // the first differing output
  Difference how = Difference::kEqual;
  // Inputs whose digests differ from the baseline's (empty: all equal, so
  // this operator is where the divergence starts).
  std::vector<size_t> inputs_differing;
  bool inputs_comparable = true;  // same number of inputs on both sides
  bool recompute_vs_forward = false;
};

// Divergences are ordered as the run ran them; a baseline operator the run
// never ran takes the place after the run's counterpart of the baseline
// operator before it.
struct DiffResult {
  std::optional<Divergence> first;           // the first operator whose outputs differ, or missing
  std::optional<Divergence> first_gradient;  // the first parameter .grad that differs, or missing
  uint64_t compared = 0, equal = 0;
  uint64_t recomputed_matched = 0;  // run recompute records matched to baseline forward ones
  uint64_t movement_skipped = 0;    // data movement operators, not compared
  uint64_t extra_in_run = 0;        // run operators with no baseline counterpart
  uint64_t missing_from_run = 0;    // baseline operators the run never ran
  const ValueRecord* first_extra = nullptr;
  const ValueRecord* first_missing = nullptr;  // in the baseline's order
  bool diverged() const { return first.has_value(); }
};

// The result points into both records: keep them alive while it is used.
DiffResult first_divergence(const ValuesRecord& baseline, const ValuesRecord& run,
                            const DiffOptions& options);

// Copies and allocations: the offload run adds them (offload, reload), and
// they compute nothing, so they are not compared.
bool is_data_movement(const std::string& op);

}  // namespace racetrack::diverge
