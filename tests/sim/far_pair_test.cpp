// sim --adversarial proves what check finds wherever the pair sits: synth
// traces of about 10^5 ops with realistic durations, one shape injected at
// a time, seeds 1-3. The first op is held until everything else has run
// (the schedule as given's makespan + 1), so however far apart the two ops
// are, the second overtakes: every definite hazard manifests, and no clean
// trace shows one.
#include <algorithm>

#include "sim_test_support.h"

namespace racetrack::sim_test {
namespace {

using testing::TempDir;

constexpr uint64_t kOps = 100000;

class FarPair : public ::testing::TestWithParam<sim_test::ShapeSeed> {};

TEST_P(FarPair, EveryDefiniteHazardManifestsAdversarially) {
  TempDir dir;
  const std::string path = dir.path("injected.rtrace");
  const auto [shape, seed] = GetParam();
  SynthOptions so = sim_test::far_synth(seed, kOps);
  so.inject[static_cast<size_t>(shape)] = 1;
  // Late in the trace, far from where the first ops of the step run.
  so.inject_from_iteration[static_cast<size_t>(shape)] = 15 + seed;
  const SynthResult truth = synth_to(path, so);
  if (truth.injected.empty()) GTEST_SKIP() << "the trace orders every place this shape could go";
  des::SimOptions o;
  o.adversarial = true;
  const des::SimReport r = simulate(path, o);
  ASSERT_LE(r.hazards.size(), o.max_adversarial);
  size_t definite = 0;
  for (const des::HazardVerdict& v : r.hazards) {
    if (v.hazard.confidence != race::Confidence::kDefinite) continue;
    ++definite;
    EXPECT_EQ(v.schedule, "adversarial");
    EXPECT_TRUE(v.manifested) << "#" << v.hazard.first.seq << " -> #" << v.hazard.second.seq << " "
                              << race::kind_name(v.hazard.kind) << " " << race::class_name(v.hazard.cls);
  }
  EXPECT_GE(definite, truth.injected.size());
  for (const InjectedHazard& h : truth.injected) {
    EXPECT_GE(h.iteration, 15u);
    const bool shown = std::any_of(r.hazards.begin(), r.hazards.end(), [&](const des::HazardVerdict& v) {
      return v.manifested && v.hazard.first.seq == h.first_seq && v.hazard.second.seq == h.second_seq;
    });
    EXPECT_TRUE(shown) << shape_name(h.shape) << " " << h.where << " did not manifest";
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, FarPair,
                         ::testing::Combine(::testing::ValuesIn(sim_test::simulated_shapes()),
                                            ::testing::Values(1, 2, 3)),
                         sim_test::shape_seed_name);

class FarClean : public ::testing::TestWithParam<uint64_t> {};

TEST_P(FarClean, NeverShowsAHazardAdversarially) {
  TempDir dir;
  const std::string path = dir.path("clean.rtrace");
  synth_to(path, sim_test::far_synth(GetParam(), kOps));
  des::SimOptions o;
  o.adversarial = true;
  const des::SimReport r = simulate(path, o);
  ASSERT_GT(r.ops, kOps / 2);
  EXPECT_EQ(r.corruptions, 0u);
  EXPECT_FALSE(any_manifested(r)) << des::format_sim_text(r);
}

INSTANTIATE_TEST_SUITE_P(Seeds, FarClean, ::testing::Values(1, 2, 3));

}  // namespace
}  // namespace racetrack::sim_test
