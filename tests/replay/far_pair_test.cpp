// --stress proves what check finds wherever the pair sits: synth traces
// with realistic durations (8 MiB activations, so an injected C1's two ops
// are tens of milliseconds apart with hundreds of ops between them), one
// shape injected at a time, seeds 1-3, replayed with the traced timing:
// every definite hazard manifests, its hold-back was sized from the pair's
// traced gap, and clean traces never show one. Manifestation is checked,
// not speed.
#include "hold_back.h"
#include "replay_test_support.h"

namespace racetrack::replay_test {
namespace {

using testing::TempDir;

// About 20000 ops: five iterations of 146 ms traced each (8000 under
// AddressSanitizer).
constexpr uint64_t kOps = kSanitized ? 8000 : 20000;

replay::ReplayOptions traced_stress(uint64_t seed) {
  replay::ReplayOptions o;
  o.stress = true;
  o.repeat = 2;  // a mirrored second run, for hazards that exclude each other
  o.seed = seed;
  return o;
}

class FarPair : public ::testing::TestWithParam<sim_test::ShapeSeed> {};

TEST_P(FarPair, EveryDefiniteHazardManifestsUnderTracedTiming) {
  TempDir dir;
  const std::string path = dir.path("injected.rtrace");
  const auto [shape, seed] = GetParam();
  SynthOptions so = sim_test::far_synth(seed, kOps);
  so.inject[static_cast<size_t>(shape)] = 1;
  const SynthResult truth = sim_test::synth_to(path, so);
  if (truth.injected.empty()) GTEST_SKIP() << "the trace orders every place this shape could go";
  const replay::ReplayReport r = replay(path, traced_stress(seed));
  ASSERT_EQ(r.runs, 2u);
  EXPECT_EQ(r.stress_groups, 1u) << "a handful of hazards fit one run's budget";
  size_t definite = 0;
  for (const replay::ReplayHazard& h : r.hazards) {
    if (h.hazard.confidence != race::Confidence::kDefinite) continue;
    ++definite;
    const std::string pair = "#" + std::to_string(h.hazard.first.seq) + " -> #" +
                             std::to_string(h.hazard.second.seq) + "\n" + replay::format_replay_text(r);
    EXPECT_GE(h.manifested_runs, 1u) << pair;
    ASSERT_TRUE(h.hold_back) << pair;
    EXPECT_EQ(h.hold_back->sized_from, replay::HoldBack::kTracedGap) << pair;
    EXPECT_GE(h.hold_back->shortest_ns, 3 * h.hold_back->gap_ns + replay::kHoldMarginNs) << pair;
    EXPECT_EQ(h.hold_back->held_runs, 2u) << pair;
  }
  EXPECT_GE(definite, truth.injected.size());
  for (const InjectedHazard& i : truth.injected) {
    auto it = std::find_if(r.hazards.begin(), r.hazards.end(), [&](const replay::ReplayHazard& v) {
      return v.hazard.first.seq == i.first_seq && v.hazard.second.seq == i.second_seq;
    });
    ASSERT_NE(it, r.hazards.end()) << shape_name(i.shape) << " " << i.where << " not found";
    EXPECT_GT(it->manifested_runs, 0u) << shape_name(i.shape) << " " << i.where << " did not manifest\n"
                                       << replay::format_replay_text(r);
    // C1 is the far pair: its gap is more than the 20 ms the fixed hold
    // once waited at most.
    if (i.shape == HazardShape::kC1) {
      EXPECT_GT(it->hold_back->gap_ns, 20'000'000);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, FarPair,
                         ::testing::Combine(::testing::ValuesIn(sim_test::replayed_far_shapes()),
                                            ::testing::Values(1, 2, 3)),
                         sim_test::shape_seed_name);

class FarClean : public ::testing::TestWithParam<uint64_t> {};

TEST_P(FarClean, NeverShowsAHazardUnderTracedTiming) {
  TempDir dir;
  const std::string path = dir.path("clean.rtrace");
  sim_test::synth_to(path, sim_test::far_synth(GetParam(), kOps));
  const replay::ReplayReport r = replay(path, traced_stress(GetParam()));
  ASSERT_GT(r.ops, kOps / 2);
  EXPECT_EQ(r.corrupted_reads, 0u) << replay::format_replay_text(r);
  for (const replay::ReplayHazard& h : r.hazards) EXPECT_EQ(h.manifested_runs, 0u);
}

INSTANTIATE_TEST_SUITE_P(Seeds, FarClean, ::testing::Values(1, 2, 3));

}  // namespace
}  // namespace racetrack::replay_test
