// The samples' manifest as an oracle for the simulator: every buggy sample
// shows its hazard as a stale read under the adversarial schedule, no fixed
// sample ever corrupts data (adversarially, under seeded jitter, or with any
// one op held back), and the fixes (suggested or --add-wait) leave nothing.
#include "sim_test_support.h"

namespace racetrack::sim_test {
namespace {

std::vector<Sample> samples(bool race) {
  std::vector<Sample> out;
  for (Sample& s : manifest())
    // A race sample whose hazards sim does not model is left out.
    if (s.race() == race && (!race || !s.hazards.empty())) out.push_back(std::move(s));
  return out;
}

// The race samples an added wait fixes.
std::vector<Sample> fixable_samples(bool by_ordering) {
  std::vector<Sample> out;
  for (Sample& s : samples(true))
    if (s.fixed_by_ordering() == by_ordering) out.push_back(std::move(s));
  return out;
}

std::string name_of(const ::testing::TestParamInfo<Sample>& info) {
  return sample_name(info.param);
}

const des::HazardVerdict* verdict_for(const des::SimReport& r, const ManifestHazard& h) {
  for (const des::HazardVerdict& v : r.hazards)
    if (v.hazard.first.seq == h.first_seq && v.hazard.second.seq == h.second_seq) return &v;
  return nullptr;
}

class BuggySample : public ::testing::TestWithParam<Sample> {};
class FixableSample : public ::testing::TestWithParam<Sample> {};
class UseAfterFreeSample : public ::testing::TestWithParam<Sample> {};
class FixedSample : public ::testing::TestWithParam<Sample> {};

TEST_P(BuggySample, ManifestsUnderTheAdversarialSchedule) {
  const Sample& s = GetParam();
  ASSERT_FALSE(s.hazards.empty());
  des::SimOptions o;
  o.adversarial = true;
  const des::SimReport r = simulate(s.file, o);
  for (const ManifestHazard& h : s.hazards) {
    SCOPED_TRACE("hazard #" + std::to_string(h.first_seq) + " -> #" + std::to_string(h.second_seq) + " " +
                 h.kind);
    const des::HazardVerdict* v = verdict_for(r, h);
    ASSERT_NE(v, nullptr) << des::format_sim_text(r);
    EXPECT_EQ(v->schedule, "adversarial");
    EXPECT_TRUE(v->manifested) << des::format_sim_text(r);
    bool overlaps = false, raw_read = false;
    for (const des::StaleBytes& b : v->stale) {
      if (b.hi <= h.lo || h.hi <= b.lo) continue;
      overlaps = true;
      raw_read |= reads_around(b, h, v->hazard);
    }
    EXPECT_TRUE(overlaps) << "no stale bytes in the manifest's range\n" << des::format_sim_text(r);
    if (h.kind == "RAW") {
      EXPECT_TRUE(raw_read) << "the second op did not read around the first's write";
    }
    if (raw_read) {
      EXPECT_GT(v->tainted_ops, 0u) << "the stale read taints its reader";
    }
  }
}

TEST_P(FixableSample, SuggestedFixesLeaveNothingAndCostIsReported) {
  des::SimOptions o;
  o.adversarial = true;
  o.apply_fixes = true;
  o.jitter_schedules = 4;
  const des::SimReport r = simulate(GetParam().file, o);
  expect_fixed(r, 4);
  EXPECT_NE(des::format_sim_text(r).find("what-if:"), std::string::npos);
}

TEST_P(FixableSample, AddWaitOnTheManifestPairFixesIt) {
  const Sample& s = GetParam();
  des::SimOptions o;
  for (const ManifestHazard& h : s.hazards)
    o.add_waits.push_back({.after_seq = h.first_seq, .before_seq = h.second_seq});
  const des::SimReport r = simulate(s.file, o);
  expect_fixed(r, 0);
  EXPECT_EQ(r.what_if.edits, s.hazards.size());
}

// A graph launch through a freed region's captured address corrupts
// whatever the ordering: a wait on the manifest pair leaves the hazard and
// the corruption (the fix is the clean twin's static input).
TEST_P(UseAfterFreeSample, NoAddedWaitFixesIt) {
  const Sample& s = GetParam();
  des::SimOptions o;
  for (const ManifestHazard& h : s.hazards)
    o.add_waits.push_back({.after_seq = h.first_seq, .before_seq = h.second_seq});
  const des::SimReport r = simulate(s.file, o);
  ASSERT_TRUE(r.what_if.ran);
  EXPECT_EQ(r.what_if.hazards_left, s.hazards.size());
  EXPECT_EQ(r.what_if.corrupted_schedules, r.what_if.schedules_tried) << des::format_sim_text(r);
  EXPECT_GT(r.corruptions, 0u) << "it corrupts under the schedule as given too";
}

// The property: a trace whose accesses happens-before orders cannot corrupt
// data, whatever the durations, and whichever op is held back.
TEST_P(FixedSample, NeverCorruptsUnderAnySchedule) {
  const Sample& s = GetParam();
  des::SimOptions o;
  o.adversarial = true;
  const des::SimReport r = simulate(s.file, o);
  EXPECT_EQ(r.corruptions, 0u);
  EXPECT_FALSE(any_manifested(r)) << des::format_sim_text(r);

  const des::Program p = load(s.file);
  ASSERT_FALSE(p.ops.empty());
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    des::Schedule sc;
    sc.seed = seed;
    sc.jitter_sigma = 0.5 + 0.5 * static_cast<double>(seed % 2);
    EXPECT_TRUE(tracked_run(p, sc).corrupted_reads.empty()) << "seed " << seed;
  }
  const int64_t hold = tracked_run(p, {}).run.makespan_ns + 1;
  for (uint32_t i = 0; i < p.ops.size(); ++i) {
    des::Schedule sc;
    sc.delays[i] = hold;
    EXPECT_TRUE(tracked_run(p, sc).corrupted_reads.empty()) << "holding back op #" << p.ops[i].seq;
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, BuggySample, ::testing::ValuesIn(samples(true)), name_of);
INSTANTIATE_TEST_SUITE_P(Samples, FixableSample, ::testing::ValuesIn(fixable_samples(true)), name_of);
INSTANTIATE_TEST_SUITE_P(Samples, UseAfterFreeSample, ::testing::ValuesIn(fixable_samples(false)), name_of);
INSTANTIATE_TEST_SUITE_P(Samples, FixedSample, ::testing::ValuesIn(samples(false)), name_of);

}  // namespace
}  // namespace racetrack::sim_test
