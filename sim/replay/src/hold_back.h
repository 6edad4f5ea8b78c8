// --stress: which op each hazard holds back, for how long and in which
// runs. A hold-back is sized from the pair's own gap (pair_gaps.h): at
// least the gap plus a margin, so the second op has ended before the first
// starts wherever the pair sits in the trace. The hold-backs of one run add
// up to at most a budget; when they do not fit, the held ops are split into
// groups that take turns across --repeat runs (docs/replay.md, "--stress").
#pragma once

#include <unordered_map>
#include <vector>

#include "pair_gaps.h"

namespace racetrack::replay {

// A hold-back waits at least three times the gap and this much more: the
// replay can run slower than the trace (on a loaded machine, with the
// threads' own overhead), and a worker thread can take milliseconds to
// start.
inline constexpr int64_t kHoldMarginNs = 20'000'000;

struct HoldOptions {
  int64_t fixed_ns = 0;  // > 0 (--stress-ns): every hold in [fixed / 2, fixed], not sized from the gaps
  int64_t budget_ns = 10'000'000'000;  // the hold-backs of one run add up to at most this
  uint64_t seed = 1;
  int64_t margin_ns = kHoldMarginNs;  // added to three times the gap
};

// An op held back: the first op of one or more hazards.
struct HeldOp {
  uint32_t op = 0;             // op index
  int64_t needed_ns = 0;       // its pairs' longest gap plus the margin (or fixed / 2)
  bool capped = false;         // the budget allows less than needed_ns
  uint32_t group = 0;          // held in the runs r with r % groups == group
  std::vector<des::Dep> ends;  // the ends of its pairs' second ops (early release)
};

// A group's window: each of its ops waits a seeded while in [shortest, longest].
struct HoldWindow {
  int64_t shortest_ns = 0, longest_ns = 0;
};

class HoldPlan {
 public:
  static HoldPlan build(const des::Program& program, const std::vector<race::Hazard>& hazards,
                        const std::vector<PairGap>& gaps, const HoldOptions& options);

  // Op index -> ns held back in run `run` (0-based). Runs take the groups in
  // turn; a group's second turn mirrors its first (d -> shortest + longest -
  // d), which flips the order in which any two of its ops are released.
  std::unordered_map<uint32_t, int64_t> delays(uint32_t run) const;
  // Op index -> what lets it go early: its pairs' second ops having ended.
  std::unordered_map<uint32_t, std::vector<des::Dep>> releases(uint32_t run) const;

  uint32_t groups() const { return static_cast<uint32_t>(windows_.size()); }
  const HoldWindow& window(uint32_t group) const { return windows_[group]; }
  const std::vector<HeldOp>& held() const { return held_; }
  // The held op of hazard k (by the order passed to build).
  const HeldOp& held_of(size_t hazard) const { return held_[held_of_[hazard]]; }
  // How many of the first `runs` runs hold `group`.
  uint32_t runs_holding(uint32_t group, uint32_t runs) const;

 private:
  std::vector<HeldOp> held_;  // by op index
  std::vector<uint32_t> held_of_;
  std::vector<HoldWindow> windows_;
  uint64_t seed_ = 1;
  std::vector<uint64_t> seqs_;  // of held_, for the seeded delays
};

}  // namespace racetrack::replay
