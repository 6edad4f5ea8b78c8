// The samples' manifest as an oracle for the replay: every buggy sample's
// hazards manifest as stale reads in every --stress run (also with the
// arenas scaled down), and no fixed sample ever corrupts a read, over many
// seeds and with any one op held back.
#include "replay_test_support.h"

namespace racetrack::replay_test {
namespace {

const replay::ReplayHazard* find(const replay::ReplayReport& r, const ManifestHazard& h) {
  for (const replay::ReplayHazard& rh : r.hazards)
    if (rh.hazard.first.seq == h.first_seq && rh.hazard.second.seq == h.second_seq) return &rh;
  return nullptr;
}

// Bytes of [h.lo, h.hi) the stale entries cover (overlapping entries count
// twice: a lower bound is all the tests need).
uint64_t stale_bytes_in(const replay::ReplayHazard& rh, const ManifestHazard& h) {
  uint64_t bytes = 0;
  for (const des::StaleBytes& b : rh.stale)
    if (b.lo < h.hi && h.lo < b.hi) bytes += std::min(b.hi, h.hi) - std::max(b.lo, h.lo);
  return bytes;
}

void expect_manifests(const Sample& s, const replay::ReplayReport& r, uint32_t runs) {
  ASSERT_EQ(r.runs, runs);
  EXPECT_GT(r.corrupted_reads, 0u);
  for (const ManifestHazard& h : s.hazards) {
    SCOPED_TRACE("hazard #" + std::to_string(h.first_seq) + " -> #" + std::to_string(h.second_seq) + " " +
                 h.kind);
    const replay::ReplayHazard* rh = find(r, h);
    ASSERT_NE(rh, nullptr) << replay::format_replay_text(r);
    EXPECT_EQ(rh->manifested_runs, runs) << replay::format_replay_text(r);
    EXPECT_GE(stale_bytes_in(*rh, h), (h.hi - h.lo) / 2) << "the stale bytes miss the manifest's range\n"
                                                         << replay::format_replay_text(r);
    if (h.kind == "RAW") {
      const bool raw_read = std::any_of(rh->stale.begin(), rh->stale.end(), [&](const des::StaleBytes& b) {
        return sim_test::reads_around(b, h, rh->hazard);
      });
      EXPECT_TRUE(raw_read) << "the second op did not read around the first's write\n"
                            << replay::format_replay_text(r);
    }
  }
}

class BuggySample : public ::testing::TestWithParam<Sample> {};
class FixedSample : public ::testing::TestWithParam<Sample> {};

TEST_P(BuggySample, ManifestsInEveryStressRun) {
  const Sample& s = GetParam();
  ASSERT_FALSE(s.hazards.empty());
  const replay::ReplayReport r = replay(s.file, stress_options(3));
  EXPECT_EQ(r.hazards.size(), s.hazards.size()) << replay::format_replay_text(r);
  expect_manifests(s, r, 3);
}

// Scaled down to a few KiB of arena with 64-byte granules, every hazard
// (its ranges are 4 KiB or more) still shows, and the stale bytes are
// reported in traced addresses across the whole range.
TEST_P(BuggySample, ManifestsWithTheArenasScaledDown) {
  const Sample& s = GetParam();
  replay::ReplayOptions o = stress_options(3, 7);
  o.granule = 64;
  o.memory_limit = 4096;
  const replay::ReplayReport r = replay(s.file, o);
  EXPECT_LT(r.scale, 1.0);
  expect_manifests(s, r, 3);
}

TEST_P(FixedSample, NeverCorruptsOverManySeeds) {
  const Sample& s = GetParam();
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    replay::ReplayOptions o = stress_options(2, seed);
    o.granule = seed % 2 ? 4096 : 64;
    const replay::ReplayReport r = replay(s.file, o);
    EXPECT_EQ(r.runs, 2u);
    EXPECT_TRUE(r.hazards.empty()) << replay::format_replay_text(r);
    EXPECT_EQ(r.corrupted_reads, 0u) << "seed " << seed << "\n" << replay::format_replay_text(r);
  }
}

// The property behind the verdicts: ops that happens-before orders cannot
// corrupt a read however long any one of them takes to start.
TEST_P(FixedSample, NeverCorruptsWithAnyOpHeldBack) {
  const des::Program p = sim_test::load(GetParam().file);
  ASSERT_FALSE(p.ops.empty());
  const des::SequentialReference reference(p);
  for (uint64_t granule : {uint64_t{4096}, uint64_t{64}, uint64_t{4}}) {
    const replay::ArenaPlan plan = replay::ArenaPlan::build(p, granule, 0);
    // Byte-fine stamps only on the small samples: megabytes of 4-byte
    // granules take seconds under AddressSanitizer.
    if (granule == 4 && plan.traced_bytes() > (64u << 10)) continue;
    for (uint32_t i = 0; i < p.ops.size(); ++i) {
      const replay::HostRun run = run_host(p, plan, reference, {{i, 2'000'000}});
      EXPECT_TRUE(run.mismatches.empty()) << "granule " << granule << ", holding back op #" << p.ops[i].seq
                                          << ": " << describe(p, run.mismatches.front());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, BuggySample, ::testing::ValuesIn(samples(true)), sample_param_name);
INSTANTIATE_TEST_SUITE_P(Samples, FixedSample, ::testing::ValuesIn(samples(false)), sample_param_name);

}  // namespace
}  // namespace racetrack::replay_test
