// The --stress hold plan: each hold-back sized from its pair's gap (at
// least the gap plus the margin), the holds of one run within the budget,
// groups taking turns across runs so every held op gets its turn, mirrored
// second turns, caps, and --stress-ns fixing the window as before.
#include "hold_back.h"

#include <map>
#include <numeric>

#include "replay_test_support.h"

namespace racetrack::replay_test {
namespace {

using replay::HoldOptions;
using replay::HoldPlan;
using replay::PairGap;

constexpr int64_t kMs = 1'000'000;

// `n` device ops (seq i + 1) and hazards between the pairs given (op indices).
struct Case {
  des::Program program;
  std::vector<race::Hazard> hazards;
  std::vector<PairGap> gaps;
};

Case pairs(uint32_t n, const std::vector<std::tuple<uint32_t, uint32_t, int64_t>>& pairs_and_gaps) {
  Case c;
  for (uint32_t i = 0; i < n; ++i) {
    des::SimOp op;
    op.seq = i + 1;
    op.device = i % 2 == 0;  // odd indices: host-only ops
    c.program.ops.push_back(op);
  }
  for (const auto& [a, b, gap] : pairs_and_gaps) {
    race::Hazard h;
    h.first.seq = a + 1;
    h.second.seq = b + 1;
    c.hazards.push_back(h);
    c.gaps.push_back({gap, replay::GapSource::kTraced});
  }
  return c;
}

HoldPlan plan_of(const Case& c, HoldOptions o = {}) {
  return HoldPlan::build(c.program, c.hazards, c.gaps, o);
}

int64_t total(const std::unordered_map<uint32_t, int64_t>& delays) {
  return std::accumulate(delays.begin(), delays.end(), int64_t{0},
                         [](int64_t s, const auto& d) { return s + d.second; });
}

TEST(HoldPlan, EachHoldIsAtLeastItsPairsGapPlusTheMargin) {
  // A pair 62 ms apart (the 10^6-op C1), one 1 ms apart, one with no gap.
  const Case c = pairs(10, {{0, 3, 62 * kMs}, {2, 5, 1 * kMs}, {4, 8, 0}});
  const HoldPlan plan = plan_of(c);
  ASSERT_EQ(plan.groups(), 1u);
  EXPECT_EQ(plan.held_of(0).needed_ns, 3 * 62 * kMs + replay::kHoldMarginNs)
      << "three times the gap, and the margin";
  EXPECT_EQ(plan.held_of(1).needed_ns, 3 * kMs + replay::kHoldMarginNs);
  EXPECT_EQ(plan.held_of(2).needed_ns, replay::kHoldMarginNs);
  const replay::HoldWindow& w = plan.window(0);
  EXPECT_EQ(w.shortest_ns, 206 * kMs) << "one group: every op draws from the longest window";
  EXPECT_EQ(w.longest_ns, 206 * kMs + 103 * kMs);
  for (uint32_t run = 0; run < 8; ++run) {
    const auto delays = plan.delays(run);
    ASSERT_EQ(delays.size(), 3u);
    for (const auto& [op, ns] : delays) {
      EXPECT_GE(ns, w.shortest_ns);
      EXPECT_LE(ns, w.longest_ns);
    }
    EXPECT_GT(delays.at(0), 62 * kMs) << "the second op has time to overtake";
  }
  // Early release: each held op waits for the end of its pair's second op,
  // the device part of a device op, the call of a host-only one.
  const auto releases = plan.releases(0);
  ASSERT_EQ(releases.at(0).size(), 1u);
  EXPECT_EQ(releases.at(0)[0].op, 3u);
  EXPECT_EQ(releases.at(0)[0].part, des::Dep::kHostEnd);
  EXPECT_EQ(releases.at(4)[0].op, 8u);
  EXPECT_EQ(releases.at(4)[0].part, des::Dep::kDeviceEnd);
}

TEST(HoldPlan, AnOpFirstInSeveralHazardsWaitsForTheirLongestGap) {
  const Case c = pairs(10, {{0, 3, 5 * kMs}, {0, 8, 80 * kMs}, {0, 6, 10 * kMs}});
  const HoldPlan plan = plan_of(c);
  ASSERT_EQ(plan.held().size(), 1u);
  EXPECT_EQ(plan.held_of(1).needed_ns, 260 * kMs);
  EXPECT_EQ(plan.releases(0).at(0).size(), 3u) << "released once all three second ops ended";
  EXPECT_EQ(plan.delays(0).size(), 1u);
}

TEST(HoldPlan, TheHoldsOfOneRunFitTheBudgetAndEveryGroupGetsATurn) {
  // 40 pairs 40 ms apart (140 ms needed, windows to 210 ms), budget 1 s:
  // four per group.
  std::vector<std::tuple<uint32_t, uint32_t, int64_t>> many;
  for (uint32_t k = 0; k < 40; ++k) many.emplace_back(2 * k, 2 * k + 1, 40 * kMs);
  const Case c = pairs(80, many);
  HoldOptions o;
  o.budget_ns = 1000 * kMs;
  const HoldPlan plan = plan_of(c, o);
  EXPECT_EQ(plan.groups(), 10u);
  std::map<uint32_t, uint32_t> times_held;
  for (uint32_t run = 0; run < 2 * plan.groups(); ++run) {
    const auto delays = plan.delays(run);
    EXPECT_FALSE(delays.empty());
    EXPECT_LE(total(delays), o.budget_ns) << "run " << run;
    for (const auto& [op, ns] : delays) {
      ++times_held[op];
      EXPECT_GE(ns, 140 * kMs);
    }
  }
  EXPECT_EQ(times_held.size(), 40u) << "every held op got a turn";
  for (const auto& [op, n] : times_held) EXPECT_EQ(n, 2u) << "op " << op << ": once, then mirrored";
  EXPECT_EQ(plan.runs_holding(0, 1), 1u);
  EXPECT_EQ(plan.runs_holding(9, 1), 0u) << "--repeat 1 reaches only the first group";
  EXPECT_EQ(plan.runs_holding(9, 10), 1u);
  EXPECT_EQ(plan.runs_holding(3, 25), 3u);
}

TEST(HoldPlan, GroupsGatherSimilarHolds) {
  // Short and long holds: the short ones are not stretched to the long
  // ones' window when they cannot all share one run.
  std::vector<std::tuple<uint32_t, uint32_t, int64_t>> mixed;
  for (uint32_t k = 0; k < 10; ++k) mixed.emplace_back(2 * k, 2 * k + 1, k < 8 ? 0 : 500 * kMs);
  HoldOptions o;
  o.budget_ns = 5000 * kMs;
  const HoldPlan plan = plan_of(pairs(20, mixed), o);
  ASSERT_EQ(plan.groups(), 2u);
  EXPECT_EQ(plan.held_of(0).group, plan.held_of(7).group);
  EXPECT_EQ(plan.window(plan.held_of(0).group).shortest_ns, replay::kHoldMarginNs);
  EXPECT_NE(plan.held_of(8).group, plan.held_of(0).group);
  EXPECT_FALSE(plan.held_of(8).capped);
}

TEST(HoldPlan, AHoldLongerThanTheBudgetIsCappedToFit) {
  const Case c = pairs(4, {{0, 3, 20'000 * kMs}});
  HoldOptions o;
  o.budget_ns = 3000 * kMs;
  const HoldPlan plan = plan_of(c, o);
  EXPECT_TRUE(plan.held_of(0).capped);
  EXPECT_LE(plan.window(0).longest_ns, o.budget_ns);
  EXPECT_LE(total(plan.delays(0)), o.budget_ns);
}

TEST(HoldPlan, SecondTurnsMirrorTheFirst) {
  const Case c = pairs(10, {{0, 1, 30 * kMs}, {2, 3, 30 * kMs}, {4, 5, 30 * kMs}});
  const HoldPlan plan = plan_of(c);
  const replay::HoldWindow& w = plan.window(0);
  const auto first = plan.delays(0), mirrored = plan.delays(1), next = plan.delays(2);
  for (const auto& [op, ns] : first) EXPECT_EQ(ns + mirrored.at(op), w.shortest_ns + w.longest_ns);
  EXPECT_NE(first, next) << "the next pair of turns draws afresh";
  HoldOptions other_seed;
  other_seed.seed = 2;
  EXPECT_NE(first, plan_of(c, other_seed).delays(0));
}

TEST(HoldPlan, StressNsFixesTheWindowWhateverTheGap) {
  const Case c = pairs(10, {{0, 3, 62 * kMs}, {2, 5, 0}});
  HoldOptions o;
  o.fixed_ns = 20 * kMs;
  const HoldPlan plan = plan_of(c, o);
  ASSERT_EQ(plan.groups(), 1u);
  EXPECT_EQ(plan.window(0).shortest_ns, 10 * kMs);
  EXPECT_EQ(plan.window(0).longest_ns, 20 * kMs);
  for (const auto& [op, ns] : plan.delays(0)) {
    EXPECT_GE(ns, 10 * kMs);
    EXPECT_LE(ns, 20 * kMs);
  }
}

TEST(HoldPlan, NoHazardsHoldNothing) {
  const HoldPlan plan = plan_of(pairs(4, {}));
  EXPECT_EQ(plan.groups(), 0u);
  EXPECT_TRUE(plan.delays(0).empty());
  EXPECT_TRUE(plan.releases(3).empty());
}

}  // namespace
}  // namespace racetrack::replay_test
