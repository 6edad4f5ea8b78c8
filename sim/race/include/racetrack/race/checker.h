// racetrack check: one streaming pass that applies happens-before and
// checks every access against the shadow memory, grouping hazards by
// signature, while a chunk behind it the fixes of the hazards to show are
// verified and their explanations gathered (fix_verifier.h); a second pass
// only when that cannot keep up (docs/check.md).
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "racetrack/hb/assumptions.h"
#include "racetrack/hb/happens_before.h"
#include "racetrack/race/fix.h"
#include "racetrack/race/hazard.h"
#include "racetrack/race/shadow_memory.h"
#include "racetrack/traces/progress.h"

namespace racetrack::race {

struct CheckOptions {
  // Hazards below this are counted, not shown, and not fixed.
  Confidence min_confidence = Confidence::kLikely;
  std::vector<KernelModeRule> kernel_modes;
  // Machine-code modes of the trace's modules (shared by both passes);
  // null: not used.
  std::shared_ptr<CodeModeTable> code_modes;
  // Narrow raw argument words inside driver allocations to blocks inferred
  // from the trace (docs/check.md, "Extents from pointers").
  bool infer_blocks = true;
  std::set<std::string> suppressed;  // signatures
  // Keep every hazard (not only each group's first), for tests and --all.
  bool keep_all = false;
  // Explain shown hazards and verify their fixes.
  bool explain_and_fix = true;
  // Verify fixes during the pass, a chunk behind the check; false: in a
  // second pass over the file (tests compare the two).
  bool verify_during_pass = true;
  // Bytes read of the file: "checking", then "verifying fixes" when that
  // takes a pass of its own.
  Progress progress;
  // The readings of the documentation's "may synchronize" cases
  // (docs/ordering-rules.md, "Assumptions").
  hb::Assumptions assumptions;
};

// Hazards that share a signature: the same bug in every layer/iteration.
struct HazardGroup {
  std::string signature;
  Hazard first;  // the first occurrence
  uint64_t count = 0;
  std::array<uint64_t, 3> by_confidence{};        // indexed by Confidence
  Confidence confidence = Confidence::kPossible;  // the highest seen
  Evidence evidence;                              // of `first`, the strongest seen
  bool suppressed = false;
  bool shown = false;  // confidence >= min and not suppressed
  std::string explanation;
  Fix fix;
  // What would settle a possible hazard.
  std::string settle;
};

struct CheckResult {
  uint64_t ops = 0;
  uint64_t hazards = 0;
  std::array<uint64_t, 3> by_confidence{};
  std::vector<HazardGroup> groups;  // by first occurrence
  std::vector<Hazard> all;          // every hazard, with keep_all
  std::vector<Hazard> shown;        // every hazard of a shown group
  uint64_t shadow_segments = 0;     // at the end, for memory accounting
  uint64_t inferred_accesses = 0;   // kernel accesses given inferred extents
  bool fixes_checked = false;       // fixes were verified
  bool fixes_verified = false;      // every shown hazard is gone with all fixes in
  uint64_t hazards_after_fixes = 0;
  ModeUse modes;  // where the kernels' modes came from
  // The trace's names (strings, streams, threads, events), for reports.
  std::shared_ptr<const TraceTables> tables;
  hb::Assumptions assumptions;  // the readings this result holds under

  uint64_t shown_groups() const;
};

// Told the order of every op a checker applies, instead of its memory
// being checked (fix_verifier.h), and the hazards it finds without it: a
// graph's captured addresses, captures left unjoined, and external agents'
// transfers in flight.
class OrderObserver {
 public:
  virtual ~OrderObserver() = default;
  virtual void on_order(const v1::Op& op, const hb::OpOrder& order) = 0;
  virtual void on_report(const HazardSide& first, const HazardSide& second) = 0;
};

// The streaming engine of one pass.
class Checker {
 public:
  // With an observer, the checker keeps no shadow memory and tells it what
  // it finds instead of reporting.
  explicit Checker(const CheckOptions& options, OrderObserver* observer = nullptr);
  ~Checker();

  void add_chunk(const v1::Chunk& chunk);
  // The same in two steps, so a caller can insert ops of its own between
  // a chunk's ops (the fix re-check does).
  void add_entities(const v1::Chunk& chunk);
  void add_op(const v1::Op& op);
  CheckResult finish();
  const TraceTables& tables() const;
  // The hazards of shown groups so far (CheckResult::shown as it grows),
  // and whether one is its group's first so far (what gets explained).
  const std::vector<Hazard>& shown_so_far() const;
  bool is_group_first(const Hazard& h) const;
  // Set once an op names an undefined thread or stream; later ops are skipped.
  std::optional<std::string> bad_input() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// Checks a trace file of any encoding, explaining shown hazards and
// verifying their fixes with explain_and_fix (docs/check.md).
Result<CheckResult> check_file(const std::string& path, const CheckOptions& options);

// Checks a trace held in memory (one pass; tests).
CheckResult check_trace(const v1::Chunk& trace, const CheckOptions& options);

}  // namespace racetrack::race
