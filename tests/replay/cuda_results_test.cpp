// A GPU run mapped back to the trace, without a GPU: the device's mismatch
// log (granules in any order) becomes the same traced byte ranges the host
// backend reports, the final stamps show a write that landed out of order,
// and the measured times become a timeline.
#include "cuda_results.h"

#include "cuda_launch_list.h"
#include "launch_emulator.h"
#include "replay_test_support.h"

namespace racetrack::replay_test {
namespace {

struct Setup {
  des::Program program;
  std::unique_ptr<des::SequentialReference> reference;
  replay::ArenaPlan plan;
  replay::LaunchList launches;
};

std::unique_ptr<Setup> setup(const std::string& path, uint64_t granule, uint64_t memory_limit = 0) {
  auto s = std::make_unique<Setup>();
  s->program = sim_test::load(path);
  s->reference = std::make_unique<des::SequentialReference>(s->program);
  s->plan = replay::ArenaPlan::build(s->program, granule, memory_limit);
  s->launches = replay::lower_to_launches(s->program, s->plan, *s->reference);
  return s;
}

uint32_t index_of(const Setup& s, uint64_t seq) {
  return static_cast<uint32_t>(s.program.index_of(seq));
}

// c1 buggy: #7 (the H2D) reads P, which the sequential run leaves to #4.
const std::string kC1 = sim_test::kSamples + "/c1_reload_not_waited.race.pbtxt";
constexpr uint64_t kP = 0x200000000;

uint32_t check_of_p(const Setup& s) {
  const replay::OpLaunch& h2d = s.launches.ops.at(index_of(s, 7));
  for (uint32_t k = h2d.checks; k < h2d.checks + h2d.check_count; ++k)
    if (s.launches.checks[k].space == race::kHostSpace) return k;
  ADD_FAILURE() << "#7 checks no host memory";
  return 0;
}

TEST(CudaResults, LoggedGranulesMergeIntoTracedRanges) {
  const auto s = setup(kC1, 4096);
  const uint32_t k = check_of_p(*s);
  const replay::GranuleCheck& c = s->launches.checks[k];
  ASSERT_EQ(c.lo, kP);
  ASSERT_EQ(c.reader, index_of(*s, 7));
  ASSERT_EQ(c.expected, replay::stamp_of(index_of(*s, 4)));
  // Granules 0-2 and 5 of P held the initial contents, logged out of order.
  const std::vector<replay::GranuleMismatch> log = {
      {k, 0, c.g0 + 2}, {k, 0, c.g0 + 5}, {k, 0, c.g0}, {k, 0, c.g0 + 1}};
  std::vector<des::Mismatch> out;
  replay::mismatches_from_log(s->plan, s->launches.checks, log, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].reader, index_of(*s, 7));
  EXPECT_EQ(out[0].expected, index_of(*s, 4));
  EXPECT_EQ(out[0].observed, des::kInitial);
  EXPECT_EQ(out[0].space, race::kHostSpace);
  EXPECT_EQ(out[0].lo, kP);
  EXPECT_EQ(out[0].hi, kP + 3 * 4096);
  EXPECT_EQ(out[1].lo, kP + 5 * 4096);
  EXPECT_EQ(out[1].hi, kP + 6 * 4096);
}

// Different observed writers never merge: each says who overtook whom.
TEST(CudaResults, DifferentObservedWritersStaySeparate) {
  const auto s = setup(kC1, 4096);
  const uint32_t k = check_of_p(*s);
  const replay::GranuleCheck& c = s->launches.checks[k];
  const uint32_t other = replay::stamp_of(index_of(*s, 1));
  std::vector<des::Mismatch> out;
  replay::mismatches_from_log(s->plan, s->launches.checks, {{k, 0, c.g0}, {k, other, c.g0 + 1}}, out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].observed, des::kInitial);
  EXPECT_EQ(out[1].observed, index_of(*s, 1));
  EXPECT_EQ(out[1].lo, kP + 4096);
}

// Scaled down, every granule of the check maps back into its traced range,
// and together they reach its end.
TEST(CudaResults, ScaledGranulesMapBackIntoTheTracedRange) {
  const auto s = setup(kC1, 64, 8192);
  ASSERT_LT(s->plan.scale(), 1.0);
  const uint32_t k = check_of_p(*s);
  const replay::GranuleCheck& c = s->launches.checks[k];
  ASSERT_GT(c.g1, c.g0);
  std::vector<replay::GranuleMismatch> log;
  for (uint64_t g = c.g1; g-- > c.g0;) log.push_back({k, 0, g});
  std::vector<des::Mismatch> out;
  replay::mismatches_from_log(s->plan, s->launches.checks, log, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_GE(out[0].lo, c.lo);
  EXPECT_LT(out[0].lo - c.lo, static_cast<uint64_t>(64 / s->plan.scale()) + 1);
  EXPECT_EQ(out[0].hi, c.hi);
}

// A run whose reads all saw the right versions, but whose final contents
// hold an older writer in P's first granule: one final mismatch, no reader.
TEST(CudaResults, FinalStampsShowWritesThatLandedOutOfOrder) {
  const auto s = setup(sim_test::kSamples + "/c1_reload_not_waited.clean.pbtxt", 4096);
  LaunchEmulator gpu(s->launches, 1);
  bool deadlock = false;
  replay::DeviceRun run = gpu.run(deadlock);
  ASSERT_FALSE(deadlock);
  EXPECT_TRUE(replay::assemble_run(s->program, s->plan, s->launches, run).mismatches.empty());

  size_t host = s->launches.arenas.size();
  for (size_t a = 0; a < s->launches.arenas.size(); ++a)
    if (s->launches.arenas[a].space == race::kHostSpace) host = a;
  ASSERT_LT(host, s->launches.arenas.size());
  const auto [g0, g1] = replay::granule_range(s->plan, race::kHostSpace, kP, kP + 4096);
  ASSERT_EQ(g1, g0 + 1);
  run.final_stamps[host][g0] = 0;
  const replay::HostRun mapped = replay::assemble_run(s->program, s->plan, s->launches, run);
  ASSERT_EQ(mapped.mismatches.size(), 1u);
  const des::Mismatch& m = mapped.mismatches[0];
  EXPECT_EQ(m.reader, des::kInitial);
  EXPECT_EQ(m.expected, index_of(*s, 4));  // the D2H writes P last
  EXPECT_EQ(m.observed, des::kInitial);
  EXPECT_EQ(m.lo, kP);
  EXPECT_EQ(m.hi, kP + 4096);
}

// Device parts with no kernel take no time: an event record happens when
// issued or when the op before it on its stream ended, whichever is later.
TEST(CudaResults, TheTimelineFillsDevicePartsThatRanNoKernel) {
  const auto s = setup(sim_test::kSamples + "/c1_reload_not_waited.clean.pbtxt", 4096);
  replay::DeviceRun run;
  run.times.assign(s->program.ops.size(), {});
  for (size_t i = 0; i < run.times.size(); ++i) {
    const auto t = static_cast<int64_t>(1000 * (i + 1));
    run.times[i].host_start = t;
    run.times[i].issue = t + 100;
    run.times[i].host_end = t + 200;
  }
  const uint32_t kernel = index_of(*s, 1), record = index_of(*s, 2), wait = index_of(*s, 3);
  run.times[kernel].device_start = 1500;
  run.times[kernel].device_end = 9000;  // runs long: the record comes after it
  for (const auto& a : s->launches.arenas) run.final_stamps.emplace_back(a.granules, 0u);
  const replay::HostRun mapped = replay::assemble_run(s->program, s->plan, s->launches, run);
  const auto& times = mapped.times.times;
  EXPECT_EQ(times[kernel].device_start, 1500);
  EXPECT_EQ(times[kernel].device_end, 9000);
  EXPECT_EQ(times[record].device_start, 9000);
  EXPECT_EQ(times[record].device_end, 9000);
  // The wait is on the other stream, which is free: it happens at its issue.
  EXPECT_EQ(times[wait].device_start, run.times[wait].issue);
  EXPECT_EQ(times[wait].host_end, run.times[wait].host_end);
  int64_t latest = 0;
  for (const des::OpTimes& t : times) latest = std::max({latest, t.host_end, t.device_end});
  EXPECT_EQ(mapped.times.makespan_ns, latest);
  EXPECT_GE(latest, 9000);
}

}  // namespace
}  // namespace racetrack::replay_test
