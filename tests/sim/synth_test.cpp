// The simulator on synth traces: clean traces never corrupt data under any
// schedule, every definite injected hazard manifests adversarially and its
// fixes leave nothing, and traced durations reproduce the traced timeline.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>

#include "sim_test_support.h"

namespace racetrack::sim_test {
namespace {

using testing::TempDir;

// (known modes, schedule)
using CleanParam = std::tuple<bool, racetrack::Schedule>;

std::string clean_name(const ::testing::TestParamInfo<CleanParam>& info) {
  return std::string(std::get<0>(info.param) ? "known" : "raw") +
         (std::get<1>(info.param) == racetrack::Schedule::k1F1B ? "_1f1b" : "_sequential");
}

class CleanSynth : public ::testing::TestWithParam<CleanParam> {};

// The property: with no injected bug, no schedule (jittered durations, a few
// ops held back at random) shows a corrupted read, and neither does the
// adversarial option.
TEST_P(CleanSynth, NeverCorruptsUnderAnySchedule) {
  TempDir dir;
  const std::string path = dir.path("clean.rtrace");
  const auto [known, schedule] = GetParam();
  synth_to(path, small_synth(known, schedule));
  des::SimOptions o;
  o.adversarial = true;
  const des::SimReport r = simulate(path, o);
  EXPECT_EQ(r.corruptions, 0u);
  EXPECT_FALSE(any_manifested(r)) << des::format_sim_text(r);

  const des::Program p = load(path);
  ASSERT_GT(p.ops.size(), 1000u);
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<uint32_t> pick(0, static_cast<uint32_t>(p.ops.size() - 1));
  std::uniform_int_distribution<int64_t> hold(0, r.makespan_ns);
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    des::Schedule sc;
    sc.seed = seed;
    sc.jitter_sigma = 0.5 + 0.5 * static_cast<double>(seed % 2);
    for (int k = 0; k < 3; ++k) sc.delays[pick(rng)] = hold(rng);
    const TrackedRun t = tracked_run(p, sc);
    ASSERT_TRUE(t.corrupted_reads.empty())
        << "seed " << seed << ": op #" << p.ops[t.corrupted_reads.front().reader].seq
        << " read a stale version";
  }
}

INSTANTIATE_TEST_SUITE_P(Synth, CleanSynth,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Values(racetrack::Schedule::k1F1B,
                                                              racetrack::Schedule::kSequential)),
                         clean_name);

// A trace with two of each shape injected (known modes, so the injected
// pairs are definite).
struct Injected {
  std::string path;
  SynthResult truth;
};

Injected injected(const TempDir& dir, uint64_t seed, racetrack::Schedule schedule) {
  SynthOptions o = small_synth(true, schedule, seed);
  o.target_ops = 6000;  // injections go after the warm-up iteration
  // The offload shapes C1-C5. With C6-C15 as well, shapes combine into
  // pairs no single injection makes (C13's zero fill reusing a block an
  // unwaited reload wrote), which the adversarial schedule does not yet
  // make manifest.
  for (int s = 0; s <= static_cast<int>(HazardShape::kC5); ++s) o.inject[s] = 2;
  Injected out{dir.path("injected.rtrace"), {}};
  out.truth = synth_to(out.path, o);
  return out;
}

class InjectedSynth : public ::testing::TestWithParam<uint64_t> {};

TEST_P(InjectedSynth, EveryDefiniteHazardManifestsAdversarially) {
  TempDir dir;
  for (auto schedule : {racetrack::Schedule::k1F1B, racetrack::Schedule::kSequential}) {
    const Injected t = injected(dir, GetParam(), schedule);
    ASSERT_FALSE(t.truth.injected.empty());
    des::SimOptions o;
    o.adversarial = true;
    const des::SimReport r = simulate(t.path, o);
    ASSERT_LE(r.hazards.size(), o.max_adversarial);
    size_t definite = 0;
    for (const des::HazardVerdict& v : r.hazards) {
      if (v.hazard.confidence != race::Confidence::kDefinite) continue;
      ++definite;
      EXPECT_TRUE(v.manifested) << "#" << v.hazard.first.seq << " -> #" << v.hazard.second.seq << " "
                                << race::kind_name(v.hazard.kind) << " " << race::class_name(v.hazard.cls);
    }
    EXPECT_GE(definite, t.truth.injected.size());
    for (const InjectedHazard& h : t.truth.injected) {
      const bool shown = std::any_of(r.hazards.begin(), r.hazards.end(), [&](const des::HazardVerdict& v) {
        return v.manifested && v.hazard.first.seq == h.first_seq && v.hazard.second.seq == h.second_seq;
      });
      EXPECT_TRUE(shown) << shape_name(h.shape) << " " << h.where << " did not manifest";
    }
  }
}

TEST_P(InjectedSynth, SuggestedFixesLeaveNothing) {
  TempDir dir;
  const Injected t = injected(dir, GetParam(), racetrack::Schedule::k1F1B);
  des::SimOptions o;
  o.apply_fixes = true;
  o.jitter_schedules = 3;
  const des::SimReport r = simulate(t.path, o);
  expect_fixed(r, 3);
}

INSTANTIATE_TEST_SUITE_P(Seeds, InjectedSynth, ::testing::Values(1, 2, 3));

// Fidelity: with the traced durations and no perturbation the simulation
// reproduces each stream's order and the step's length.
TEST(Fidelity, TracedDurationsReproduceStreamOrderAndMakespan) {
  TempDir dir;
  for (auto schedule : {racetrack::Schedule::k1F1B, racetrack::Schedule::kSequential}) {
    SCOPED_TRACE(schedule == racetrack::Schedule::k1F1B ? "1f1b" : "sequential");
    const std::string path = dir.path("fidelity.rtrace");
    SynthOptions so = small_synth(true, schedule);
    so.target_ops = 20000;
    synth_to(path, so);
    auto trace = load_trace(path);
    ASSERT_TRUE(trace) << trace.error().describe();
    des::CostModel costs;
    costs.use_traced_times = true;
    const des::Program p = load(path, costs);
    ASSERT_EQ(p.ops.size(), static_cast<size_t>(trace->ops_size()));
    auto run = des::run(p, {});
    ASSERT_TRUE(run) << run.error().describe();

    // Per stream: seqs by traced and by simulated device start.
    std::map<uint32_t, std::vector<std::pair<int64_t, uint64_t>>> traced, simulated;
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (const v1::Op& op : trace->ops()) {
      first = std::min(first, op.host_start());
      last = std::max({last, op.host_end(), op.device_end()});
    }
    int64_t worst_shift = 0;  // of a device op's start, from its traced offset
    for (int i = 0; i < trace->ops_size(); ++i) {
      const v1::Op& op = trace->ops(i);
      if (!op.has_device_start() || !p.ops[i].device) continue;
      traced[op.stream()].push_back({op.device_start(), op.seq()});
      simulated[op.stream()].push_back({run->times[i].device_start, op.seq()});
      worst_shift = std::max(worst_shift, std::abs(run->times[i].device_start - (op.device_start() - first)));
    }
    ASSERT_FALSE(traced.empty());
    EXPECT_LE(static_cast<double>(worst_shift), 0.05 * static_cast<double>(last - first));
    for (auto& [stream, ops] : traced) {
      std::stable_sort(ops.begin(), ops.end(), [](auto& a, auto& b) { return a.first < b.first; });
      auto& sim = simulated[stream];
      std::stable_sort(sim.begin(), sim.end(), [](auto& a, auto& b) { return a.first < b.first; });
      std::vector<uint64_t> want, got;
      for (auto& o : ops) want.push_back(o.second);
      for (auto& o : sim) got.push_back(o.second);
      EXPECT_EQ(got, want) << "stream " << stream;
    }
    const double span = static_cast<double>(last - first), makespan = static_cast<double>(run->makespan_ns);
    EXPECT_NEAR(makespan / span, 1.0, 0.05) << "simulated " << makespan << " ns, traced " << span << " ns";
  }
}

}  // namespace
}  // namespace racetrack::sim_test
