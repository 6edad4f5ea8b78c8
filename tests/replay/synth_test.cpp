// The replay on synth traces: clean traces (known and raw modes, both
// schedules) never show a corrupted read, under --stress over several seeds
// or with random ops held back; every definite injected hazard manifests in
// every --stress run; and a hand-made WAW with no later read shows in the
// final contents.
#include <random>

#include "replay_test_support.h"

namespace racetrack::replay_test {
namespace {

using testing::TempDir;

// About 5000 ops (2000 under AddressSanitizer).
constexpr uint64_t kCleanOps = kSanitized ? 2000 : 5000;

// (known modes, schedule)
using CleanParam = std::tuple<bool, racetrack::Schedule>;

std::string clean_name(const ::testing::TestParamInfo<CleanParam>& info) {
  return std::string(std::get<0>(info.param) ? "known" : "raw") +
         (std::get<1>(info.param) == racetrack::Schedule::k1F1B ? "_1f1b" : "_sequential");
}

class CleanSynth : public ::testing::TestWithParam<CleanParam> {};

TEST_P(CleanSynth, NeverCorruptsUnderStressOverSeeds) {
  TempDir dir;
  const std::string path = dir.path("clean.rtrace");
  const auto [known, schedule] = GetParam();
  sim_test::synth_to(path, small_synth(known, schedule, 1, kCleanOps));
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    replay::ReplayOptions o = stress_options(2, seed);
    o.granule = seed == 2 ? 64 : 4096;
    const replay::ReplayReport r = replay(path, o);
    ASSERT_GT(r.ops, kCleanOps / 2);
    EXPECT_EQ(r.corrupted_reads, 0u) << "seed " << seed << "\n" << replay::format_replay_text(r);
    for (const replay::ReplayHazard& h : r.hazards) EXPECT_EQ(h.manifested_runs, 0u);
  }
}

// The property: whichever ops start late, happens-before keeps every read
// seeing the sequential run's version.
TEST_P(CleanSynth, NeverCorruptsWithRandomOpsHeldBack) {
  TempDir dir;
  const std::string path = dir.path("clean.rtrace");
  const auto [known, schedule] = GetParam();
  sim_test::synth_to(path, small_synth(known, schedule, 2, kCleanOps));
  const des::Program p = sim_test::load(path);
  ASSERT_GT(p.ops.size(), kCleanOps / 2);
  const des::SequentialReference reference(p);
  const replay::ArenaPlan plan = replay::ArenaPlan::build(p, 256, 0);
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<uint32_t> pick(0, static_cast<uint32_t>(p.ops.size() - 1));
  std::uniform_int_distribution<int64_t> hold(100'000, 3'000'000);
  for (int round = 0; round < 4; ++round) {
    std::unordered_map<uint32_t, int64_t> delays;
    for (int k = 0; k < 3; ++k) delays[pick(rng)] = hold(rng);
    const replay::HostRun run = run_host(p, plan, reference, delays);
    ASSERT_TRUE(run.mismatches.empty()) << "round " << round << ": " << describe(p, run.mismatches.front());
  }
}

INSTANTIATE_TEST_SUITE_P(Synth, CleanSynth,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Values(racetrack::Schedule::k1F1B,
                                                              racetrack::Schedule::kSequential)),
                         clean_name);

class InjectedSynth : public ::testing::TestWithParam<uint64_t> {};

// Two of each shape injected (known modes: the injected pairs are definite).
// Some pairs exclude each other in one run (a reload racing the kernel that
// reads it, and the next reload into the same block racing that kernel's
// read): --stress mirrors its delays in the second run of a pair, so each
// manifests in at least one of the two.
TEST_P(InjectedSynth, EveryDefiniteHazardManifestsUnderStress) {
  TempDir dir;
  const std::string path = dir.path("injected.rtrace");
  SynthOptions so = small_synth(true, racetrack::Schedule::k1F1B, GetParam(), kSanitized ? 4000 : 6000);
  // The offload shapes C1-C5. With C6-C15 as well, shapes combine into
  // pairs no single injection makes (C13's zero fill reusing a block an
  // unwaited reload wrote), which the adversarial schedule does not yet
  // make manifest.
  for (int s = 0; s <= static_cast<int>(HazardShape::kC5); ++s) so.inject[s] = 2;
  const SynthResult truth = sim_test::synth_to(path, so);
  ASSERT_FALSE(truth.injected.empty());
  replay::ReplayOptions options = stress_options(2, GetParam());
  // Under a sanitizer the ops run several times slower than the model, and a
  // 20 ms margin can end before the second op of a pair has had its turn.
  if (kSanitized) options.stress_margin_ns = 200'000'000;
  const replay::ReplayReport r = replay(path, options);
  ASSERT_EQ(r.runs, 2u);
  size_t definite = 0;
  for (const replay::ReplayHazard& h : r.hazards) {
    if (h.hazard.confidence != race::Confidence::kDefinite) continue;
    ++definite;
    EXPECT_GE(h.manifested_runs, 1u) << "#" << h.hazard.first.seq << " -> #" << h.hazard.second.seq << " "
                                     << race::kind_name(h.hazard.kind) << " "
                                     << race::class_name(h.hazard.cls);
    EXPECT_FALSE(h.stale.empty());
  }
  EXPECT_GE(definite, truth.injected.size());
  for (const InjectedHazard& h : truth.injected) {
    const bool shown = std::any_of(r.hazards.begin(), r.hazards.end(), [&](const replay::ReplayHazard& v) {
      return v.manifested_runs > 0 && v.hazard.first.seq == h.first_seq &&
             v.hazard.second.seq == h.second_seq;
    });
    EXPECT_TRUE(shown) << shape_name(h.shape) << " " << h.where << " did not manifest\n"
                       << replay::format_replay_text(r);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, InjectedSynth, ::testing::Values(1, 2, 3));

// Two unordered kernels write X and nothing reads it afterwards: only the
// final contents can show the writes landing in the other order.
TEST(HandMade, WawWithNoLaterReadShowsInTheFinalContents) {
  TempDir dir;
  TraceBuilder b;
  const StreamId s1 = b.stream("compute", v1::ROLE_COMPUTE);
  const StreamId s2 = b.stream("side", v1::ROLE_COMPUTE);
  const Buffer x = b.device_buffer("X", 1 << 16);
  b.kernel(s1, "fill_a", {}, {x}, {.duration_ns = 5000});
  b.kernel(s2, "fill_b", {}, {x}, {.duration_ns = 5000});
  b.sync_device();
  const std::string path = dir.path("waw.pbtxt");
  ASSERT_TRUE(save_trace(b.take(), path));
  const replay::ReplayReport r = replay(path, stress_options(3));
  ASSERT_EQ(r.hazards.size(), 1u) << replay::format_replay_text(r);
  const replay::ReplayHazard& h = r.hazards.front();
  EXPECT_EQ(h.hazard.kind, race::HazardKind::kWaw);
  EXPECT_EQ(h.manifested_runs, 3u) << replay::format_replay_text(r);
  ASSERT_FALSE(h.stale.empty());
  EXPECT_EQ(h.stale.front().reader_seq, 0u) << "the final contents, not a read";
  EXPECT_EQ(h.stale.front().expected_seq, h.hazard.second.seq);
  EXPECT_EQ(h.stale.front().observed_seq, h.hazard.first.seq);
  EXPECT_EQ(r.corrupted_reads, 0u) << "no op read the bytes";
}

}  // namespace
}  // namespace racetrack::replay_test
