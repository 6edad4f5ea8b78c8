// The CUDA backend's lowering, without a GPU: streams keep the traced flags,
// copies land on the arenas' images of their ranges, every ordering
// happens-before demands becomes an event the stream waits for or the host
// synchronises on, and other threads' ops are issued first where CUDA needs
// them to be. The property behind it: the launch list run the way CUDA runs
// it (LaunchEmulator, in random orders and with any op held back) never
// corrupts a read of a fixed sample or a clean synth trace, and lets every
// hazard of a buggy one manifest when its first op is held back (--stress);
// a lowering that loses its waits or its issue order corrupts.
#include <gmock/gmock.h>

#include "cuda_launch_list.h"
#include "cuda_results.h"
#include "hold_back.h"
#include "launch_emulator.h"
#include "racetrack/race/checker.h"
#include "replay_test_support.h"

namespace racetrack::replay_test {
namespace {

struct Lowered {
  des::Program program;
  std::unique_ptr<des::SequentialReference> reference;
  replay::ArenaPlan plan;
  replay::LaunchList launches;
};

std::unique_ptr<Lowered> lower(const std::string& path, uint64_t granule = 4096, uint64_t memory_limit = 0) {
  auto l = std::make_unique<Lowered>();
  l->program = sim_test::load(path);
  l->reference = std::make_unique<des::SequentialReference>(l->program);
  l->plan = replay::ArenaPlan::build(l->program, granule, memory_limit);
  l->launches = replay::lower_to_launches(l->program, l->plan, *l->reference);
  return l;
}

uint32_t index_of(const Lowered& l, uint64_t seq) {
  const size_t i = l.program.index_of(seq);
  EXPECT_LT(i, l.program.ops.size()) << "no op #" << seq;
  return static_cast<uint32_t>(i);
}

const replay::OpLaunch& op(const Lowered& l, uint64_t seq) {
  return l.launches.ops.at(index_of(l, seq));
}

// The ops whose done events op `o` waits for on its stream, or joins.
// Every copy run lies inside the arenas of its spaces.
void expect_runs_fit(const replay::LaunchList& l) {
  for (const replay::OpLaunch& o : l.ops) {
    if (o.work != replay::Work::kCopy) continue;
    for (uint32_t k = o.runs; k < o.runs + o.run_count; ++k) {
      const replay::CopyRun& r = l.copy_runs[k];
      for (const replay::ArenaSpec& a : l.arenas) {
        if (a.space == r.src_space) {
          EXPECT_LE(r.src_offset + r.bytes, a.bytes);
        }
        if (a.space == r.dst_space) {
          EXPECT_LE(r.dst_offset + r.bytes, a.bytes);
        }
      }
    }
  }
}

std::vector<uint64_t> event_seqs(const Lowered& l, uint32_t first, uint32_t count) {
  std::vector<uint64_t> out;
  for (uint32_t k = first; k < first + count; ++k)
    for (uint32_t i = 0; i < l.launches.ops.size(); ++i)
      if (l.launches.ops[i].done_event == static_cast<int32_t>(l.launches.event_refs[k]))
        out.push_back(l.program.ops[i].seq);
  return out;
}

std::vector<uint64_t> waits_of(const Lowered& l, uint64_t seq) {
  return event_seqs(l, op(l, seq).waits, op(l, seq).wait_count);
}
std::vector<uint64_t> joins_of(const Lowered& l, uint64_t seq) {
  return event_seqs(l, op(l, seq).joins, op(l, seq).join_count);
}

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(CudaLowering, StreamsKeepTheirTracedFlags) {
  const auto c1 = lower(sim_test::kSamples + "/c1_reload_not_waited.race.pbtxt");
  ASSERT_EQ(c1->launches.streams.size(), 2u);
  for (const replay::StreamSpec& s : c1->launches.streams) {
    EXPECT_TRUE(s.non_blocking);
    EXPECT_FALSE(s.legacy);
  }
  const auto legacy = lower(sim_test::kSamples + "/legacy_default_stream.race.pbtxt");
  ASSERT_EQ(legacy->launches.streams.size(), 2u);
  EXPECT_EQ(legacy->launches.streams[0].traced_id, 1u);
  EXPECT_TRUE(legacy->launches.streams[0].non_blocking);
  EXPECT_FALSE(legacy->launches.streams[0].legacy);
  EXPECT_EQ(legacy->launches.streams[1].traced_id, 2u);
  EXPECT_TRUE(legacy->launches.streams[1].legacy);
  // Ops go to their own stream's slot; host-only ops to none.
  EXPECT_EQ(op(*legacy, 1).stream, 0);
  EXPECT_EQ(op(*legacy, 2).stream, 1);
  const auto join = lower(sim_test::kSamples + "/host_join_thread.race.pbtxt");
  EXPECT_EQ(op(*join, 3).stream, -1);  // a stream synchronize is a host call
  EXPECT_EQ(op(*join, 4).stream, -1);
}

TEST(CudaLowering, WorkFollowsTheOpKind) {
  const auto c1 = lower(sim_test::kSamples + "/c1_reload_not_waited.clean.pbtxt");
  EXPECT_EQ(op(*c1, 1).work, replay::Work::kKernel);
  EXPECT_EQ(op(*c1, 2).work, replay::Work::kNone);  // event record
  EXPECT_EQ(op(*c1, 3).work, replay::Work::kNone);  // stream wait
  EXPECT_EQ(op(*c1, 4).work, replay::Work::kCopy);
  EXPECT_EQ(op(*c1, 9).work, replay::Work::kKernel);
  const auto join = lower(sim_test::kSamples + "/host_join_thread.race.pbtxt");
  EXPECT_EQ(op(*join, 3).work, replay::Work::kNone);
  EXPECT_EQ(op(*join, 4).work, replay::Work::kHostAccess);
  EXPECT_EQ(op(*join, 4).check_count, 1u);
  EXPECT_EQ(op(*join, 4).thread, 1u);
}

// The D2H P <- X of c1 (#4): a copy from the device arena's image of X to
// the host arena's image of P, 1 MiB; its read is checked and its write
// stamped per granule.
TEST(CudaLowering, CopiesRunBetweenTheArenaImagesOfTheirRanges) {
  const auto c1 = lower(sim_test::kSamples + "/c1_reload_not_waited.race.pbtxt");
  const replay::OpLaunch& d2h = op(*c1, 4);
  ASSERT_EQ(d2h.work, replay::Work::kCopy);
  const des::SimOp& s = c1->program.ops[index_of(*c1, 4)];
  const des::SimAccess* src = nullptr;
  const des::SimAccess* dst = nullptr;
  for (uint32_t a = s.accesses; a < s.accesses + s.access_count; ++a)
    (c1->program.accesses[a].writes ? dst : src) = &c1->program.accesses[a];
  ASSERT_TRUE(src && dst);
  ASSERT_EQ(d2h.run_count, 1u);
  const replay::CopyRun& run = c1->launches.copy_runs[d2h.runs];
  EXPECT_EQ(run.src_space, race::device_space(0));
  EXPECT_EQ(run.dst_space, race::kHostSpace);
  EXPECT_EQ(run.src_offset, c1->plan.offset(src->space, src->lo));
  EXPECT_EQ(run.dst_offset, c1->plan.offset(dst->space, 0x200000000));
  EXPECT_EQ(run.bytes, 1u << 20);
  ASSERT_EQ(d2h.write_count, 1u);
  const replay::GranuleWrite& w = c1->launches.writes[d2h.writes];
  EXPECT_EQ(w.space, race::kHostSpace);
  EXPECT_EQ(w.g1 - w.g0, (1u << 20) / 4096);
  ASSERT_EQ(d2h.check_count, 1u);
  EXPECT_EQ(c1->launches.checks[d2h.checks].g1 - c1->launches.checks[d2h.checks].g0, (1u << 20) / 4096);
  expect_runs_fit(c1->launches);
}

// Scaled down, a copy moves the arena image of its range, not the traced size.
TEST(CudaLowering, ScaledCopiesFitTheirArenas) {
  const auto c1 = lower(sim_test::kSamples + "/c1_reload_not_waited.race.pbtxt", 64, 8192);
  ASSERT_LT(c1->plan.scale(), 1.0);
  const replay::OpLaunch& d2h = op(*c1, 4);
  ASSERT_EQ(d2h.run_count, 1u);
  EXPECT_GT(c1->launches.copy_runs[d2h.runs].bytes, 0u);
  EXPECT_LT(c1->launches.copy_runs[d2h.runs].bytes, 1u << 20);
  expect_runs_fit(c1->launches);
  for (const replay::ArenaSpec& a : c1->launches.arenas) EXPECT_EQ(a.granules, a.bytes / 64 + 1);
}

// A 2D copy (copy2d_rows, #3: 4 rows of 64 KiB, dst pitch 128 KiB) is one
// run per row, each between the arena images of that row on both sides,
// and its stamps cover the rows, not the gaps.
TEST(CudaLowering, PitchedCopiesRunRowByRow) {
  const auto t = lower(sim_test::kSamples + "/copy2d_rows.clean.pbtxt");
  const replay::OpLaunch& copy = op(*t, 3);
  ASSERT_EQ(copy.work, replay::Work::kCopy);
  ASSERT_EQ(copy.run_count, 4u);
  const des::SimOp& s = t->program.ops[index_of(*t, 3)];
  std::vector<const des::SimAccess*> rows;
  for (uint32_t a = s.accesses; a < s.accesses + s.access_count; ++a)
    if (t->program.accesses[a].writes) rows.push_back(&t->program.accesses[a]);
  ASSERT_EQ(rows.size(), 4u);
  for (uint32_t i = 0; i < 4; ++i) {
    const replay::CopyRun& run = t->launches.copy_runs[copy.runs + i];
    EXPECT_EQ(run.bytes, 65536u);
    EXPECT_EQ(run.dst_offset, t->plan.offset(rows[i]->space, rows[i]->lo));
    EXPECT_EQ(rows[i]->hi - rows[i]->lo, 65536u);
    if (i > 0) {
      EXPECT_EQ(rows[i]->lo - rows[i - 1]->lo, 131072u);
    }
  }
  EXPECT_EQ(copy.write_count, 4u);
  expect_runs_fit(t->launches);
}

// c1 fixed: the D2H (#4) waits for the forward kernel (#1) through the
// record/wait pair, the H2D (#8) for the D2H's stream; c1 buggy: the H2D
// waits for nothing.
TEST(CudaLowering, StreamWaitsFollowTheTracedEvents) {
  const auto clean = lower(sim_test::kSamples + "/c1_reload_not_waited.clean.pbtxt");
  EXPECT_THAT(waits_of(*clean, 3), ElementsAre(2));  // the wait: the record on the compute stream
  EXPECT_THAT(waits_of(*clean, 7), ElementsAre(5));
  EXPECT_THAT(waits_of(*clean, 4), IsEmpty());  // already ordered by its stream's wait
  EXPECT_GE(op(*clean, 2).done_event, 0);
  EXPECT_GE(op(*clean, 5).done_event, 0);
  EXPECT_LT(op(*clean, 9).done_event, 0);  // nothing waits for the last kernel
  const auto race = lower(sim_test::kSamples + "/c1_reload_not_waited.race.pbtxt");
  EXPECT_THAT(waits_of(*race, 7), IsEmpty());
}

// The legacy default stream's implicit ordering becomes an explicit wait.
TEST(CudaLowering, LegacyStreamOrderingIsExplicit) {
  const auto clean = lower(sim_test::kSamples + "/legacy_default_stream.clean.pbtxt");
  EXPECT_THAT(waits_of(*clean, 2), ElementsAre(1));
  const auto race = lower(sim_test::kSamples + "/legacy_default_stream.race.pbtxt");
  EXPECT_THAT(waits_of(*race, 2), IsEmpty());
}

// host_join_thread: T1 synchronises S, so its sync joins the D2H; T2 reads
// P without a join. Fixed, T2 synchronises S itself, after T1 issued the D2H.
TEST(CudaLowering, HostJoinsAndCrossThreadIssueOrder) {
  const auto race = lower(sim_test::kSamples + "/host_join_thread.race.pbtxt");
  EXPECT_THAT(joins_of(*race, 3), ElementsAre(2));
  EXPECT_THAT(joins_of(*race, 4), IsEmpty());
  EXPECT_EQ(op(*race, 4).issue_after_count, 0u);

  const auto clean = lower(sim_test::kSamples + "/host_join_thread.clean.pbtxt");
  const replay::OpLaunch& sync = op(*clean, 3);
  EXPECT_EQ(sync.thread, 1u);
  EXPECT_THAT(joins_of(*clean, 3), ElementsAre(2));
  // T1's D2H must be issued (its event recorded) before T2 synchronises on it.
  bool after_d2h_issued = false;
  for (uint32_t k = sync.issue_after; k < sync.issue_after + sync.issue_after_count; ++k) {
    const replay::IssueAfter& a = clean->launches.issue_after[k];
    EXPECT_EQ(clean->program.ops[a.op].thread, 0u);
    after_d2h_issued = after_d2h_issued || (a.op == index_of(*clean, 2) && !a.returned);
  }
  EXPECT_TRUE(after_d2h_issued);
}

// Over every sample: events are dense and each is waited for; waits and
// joins name earlier ops (waits: on other streams); issue orders name
// earlier ops of other threads.
TEST(CudaLowering, ReferencesPointBackwards) {
  for (const Sample& s : sim_test::manifest()) {
    SCOPED_TRACE(s.file);
    const auto l = lower(s.file);
    const replay::LaunchList& launches = l->launches;
    std::vector<int> uses(launches.events, 0);
    std::vector<int> owners(launches.events, 0);
    std::vector<uint32_t> owner_of(launches.events, 0);
    for (uint32_t i = 0; i < launches.ops.size(); ++i)
      if (launches.ops[i].done_event >= 0) {
        ++owners.at(static_cast<size_t>(launches.ops[i].done_event));
        owner_of[static_cast<size_t>(launches.ops[i].done_event)] = i;
      }
    for (uint32_t i = 0; i < launches.ops.size(); ++i) {
      const replay::OpLaunch& o = launches.ops[i];
      for (uint32_t k = o.waits; k < o.waits + o.wait_count; ++k) {
        const uint32_t e = launches.event_refs[k];
        ++uses.at(e);
        EXPECT_LT(owner_of[e], i);
        EXPECT_NE(launches.ops[owner_of[e]].stream, o.stream);
      }
      for (uint32_t k = o.joins; k < o.joins + o.join_count; ++k) {
        ++uses.at(launches.event_refs[k]);
        EXPECT_LE(owner_of[launches.event_refs[k]], i);
      }
      for (uint32_t k = o.issue_after; k < o.issue_after + o.issue_after_count; ++k) {
        EXPECT_LT(launches.issue_after[k].op, i);
        EXPECT_NE(launches.ops[launches.issue_after[k].op].thread, o.thread);
      }
    }
    for (uint32_t e = 0; e < launches.events; ++e) {
      EXPECT_EQ(owners[e], 1) << "event " << e;
      EXPECT_GT(uses[e], 0) << "event " << e;
    }
  }
}

// ---- The launch list run the way CUDA runs it

struct Emulated {
  uint64_t corrupted_runs = 0;
  bool deadlock = false;
  std::vector<uint32_t> manifested;  // per hazard: runs that showed it
  std::string first;                 // the first corruption seen
};

Emulated emulate(const Lowered& l, const std::vector<race::Hazard>& hazards, uint64_t runs,
                 const std::set<uint32_t>& held = {}) {
  Emulated out;
  out.manifested.assign(hazards.size(), 0);
  for (uint64_t seed = 1; seed <= runs; ++seed) {
    LaunchEmulator gpu(l.launches, seed, held);
    bool deadlock = false;
    replay::DeviceRun measured = gpu.run(deadlock);
    out.deadlock = out.deadlock || deadlock;
    const replay::HostRun run = replay::assemble_run(l.program, l.plan, l.launches, std::move(measured));
    if (!run.mismatches.empty()) {
      ++out.corrupted_runs;
      if (out.first.empty())
        out.first = "seed " + std::to_string(seed) + ": " + describe(l.program, run.mismatches[0]);
    }
    for (size_t k = 0; k < hazards.size(); ++k) {
      const uint32_t a = index_of(l, hazards[k].first.seq), b = index_of(l, hazards[k].second.seq);
      out.manifested[k] +=
          std::any_of(run.mismatches.begin(), run.mismatches.end(),
                      [&](const des::Mismatch& m) { return des::shows_hazard(m, a, b, hazards[k]); });
    }
  }
  return out;
}

std::vector<race::Hazard> hazards_of(const std::string& path) {
  auto check = race::check_file(path, {});
  EXPECT_TRUE(check) << check.error().describe();
  return check ? check->shown : std::vector<race::Hazard>{};
}

class LoweredBuggySample : public ::testing::TestWithParam<Sample> {};
class LoweredFixedSample : public ::testing::TestWithParam<Sample> {};

TEST_P(LoweredFixedSample, NeverCorruptsInAnyOrder) {
  for (uint64_t granule : {uint64_t{4096}, uint64_t{64}}) {
    const auto l = lower(GetParam().file, granule);
    const Emulated e = emulate(*l, {}, 200);
    EXPECT_FALSE(e.deadlock);
    EXPECT_EQ(e.corrupted_runs, 0u) << e.first;
  }
}

TEST_P(LoweredFixedSample, NeverCorruptsWithAnyOpHeldBack) {
  const auto l = lower(GetParam().file, 64);
  for (uint32_t i = 0; i < l->launches.ops.size(); ++i) {
    const Emulated e = emulate(*l, {}, 10, {i});
    EXPECT_FALSE(e.deadlock);
    EXPECT_EQ(e.corrupted_runs, 0u) << "holding back #" << l->program.ops[i].seq << ": " << e.first;
  }
}

// As under --stress: with the first op of a hazard held back, the second
// overtakes it in every run.
TEST_P(LoweredBuggySample, EveryHazardManifestsWithItsFirstOpHeldBack) {
  const auto l = lower(GetParam().file);
  const std::vector<race::Hazard> hazards = hazards_of(GetParam().file);
  ASSERT_EQ(hazards.size(), GetParam().hazards.size());
  for (size_t k = 0; k < hazards.size(); ++k) {
    // A staged copy's call waits here for the copy to finish (CUDA has no
    // "started" event; docs/replay.md): its write cannot be held back past
    // the second op, which the call orders. The host backend shows it.
    if (l->program.ops[l->program.index_of(hazards[k].first.seq)].staged) continue;
    const Emulated e = emulate(*l, hazards, 20, {index_of(*l, hazards[k].first.seq)});
    EXPECT_FALSE(e.deadlock);
    EXPECT_EQ(e.manifested[k], 20u) << "hazard #" << hazards[k].first.seq << " -> #" << hazards[k].second.seq;
  }
}

// `--backend cuda` refuses traces with external agents' accesses (C14,
// docs/replay.md): the lowering has no kernel to land them with.
std::vector<Sample> lowerable(bool race) {
  std::vector<Sample> out;
  for (Sample& s : samples(race))
    if (sim_test::load(s.file).externals.empty()) out.push_back(std::move(s));
  return out;
}

INSTANTIATE_TEST_SUITE_P(Samples, LoweredBuggySample, ::testing::ValuesIn(lowerable(true)),
                         sample_param_name);
INSTANTIATE_TEST_SUITE_P(Samples, LoweredFixedSample, ::testing::ValuesIn(lowerable(false)),
                         sample_param_name);

TEST(CudaLowering, CleanSynthNeverCorruptsInAnyOrder) {
  testing::TempDir dir;
  for (const bool known : {true, false}) {
    const std::string path = dir.path(known ? "known.rtrace" : "raw.rtrace");
    sim_test::synth_to(path, small_synth(known, racetrack::Schedule::k1F1B, 3, 2000));
    const auto l = lower(path, 256);
    ASSERT_GT(l->launches.ops.size(), 1000u);
    ASSERT_GT(l->launches.events, 0u);
    const Emulated e = emulate(*l, {}, 5);
    EXPECT_FALSE(e.deadlock);
    EXPECT_EQ(e.corrupted_runs, 0u) << (known ? "known modes: " : "raw modes: ") << e.first;
  }
}

// The emulator catches a lowering that loses orderings: without its stream
// waits c1's fixed sample corrupts, and without the issue order across
// threads a fixed multi-threaded one does.
TEST(CudaLowering, LosingWaitsOrIssueOrderCorrupts) {
  auto c1 = lower(sim_test::kSamples + "/c1_reload_not_waited.clean.pbtxt");
  for (replay::OpLaunch& o : c1->launches.ops) o.wait_count = 0;
  EXPECT_GT(emulate(*c1, {}, 100).corrupted_runs, 0u);

  auto join = lower(sim_test::kSamples + "/host_join_thread.clean.pbtxt");
  ASSERT_GT(join->launches.issue_after.size(), 0u);
  for (replay::OpLaunch& o : join->launches.ops) o.issue_after_count = 0;
  EXPECT_GT(emulate(*join, {}, 100).corrupted_runs, 0u);
}

// --stress on the GPU: the CUDA backend gets the delays of the same hold
// plan as the host backend, each at least its pair's traced gap plus the
// margin. On synth traces whose pairs sit tens of milliseconds apart, one
// shape at a time: the plan holds the first op of every hazard, and with
// those ops held the launch list lets every definite hazard manifest (the
// emulator starts a held op only when nothing else can move, as a hold
// longer than the gap does).
class LoweredFarPair : public ::testing::TestWithParam<int> {};

TEST_P(LoweredFarPair, ThePlansHoldsLetEveryDefiniteHazardManifest) {
  testing::TempDir dir;
  const std::string path = dir.path("injected.rtrace");
  SynthOptions so = sim_test::far_synth(1, kSanitized ? 8000 : 20000);
  so.inject[static_cast<size_t>(GetParam())] = 1;
  if (sim_test::synth_to(path, so).injected.empty()) GTEST_SKIP() << "nowhere to place this shape";
  const auto l = lower(path, 4096, 256ull << 20);
  const std::vector<race::Hazard> hazards = hazards_of(path);
  ASSERT_FALSE(hazards.empty());
  auto gaps = replay::pair_gaps(path, l->program, hazards, true, 1.0);
  ASSERT_TRUE(gaps) << gaps.error().describe();
  const replay::HoldPlan holds = replay::HoldPlan::build(l->program, hazards, *gaps, {});
  std::vector<uint32_t> manifested(hazards.size(), 0);
  for (uint32_t run = 0; run < 2; ++run) {
    const auto delays = holds.delays(run);
    std::set<uint32_t> held;
    for (const auto& [op, ns] : delays) held.insert(op);
    for (size_t k = 0; k < hazards.size(); ++k) {
      const uint32_t first = index_of(*l, hazards[k].first.seq);
      ASSERT_TRUE(held.count(first)) << "hazard #" << hazards[k].first.seq << " not held";
      EXPECT_GE(delays.at(first), (*gaps)[k].ns + replay::kHoldMarginNs);
    }
    const Emulated e = emulate(*l, hazards, 3, held);
    EXPECT_FALSE(e.deadlock);
    for (size_t k = 0; k < hazards.size(); ++k) manifested[k] += e.manifested[k];
  }
  for (size_t k = 0; k < hazards.size(); ++k) {
    if (hazards[k].confidence != race::Confidence::kDefinite) continue;
    EXPECT_GT(manifested[k], 0u) << "hazard #" << hazards[k].first.seq << " -> #" << hazards[k].second.seq;
  }
}

std::string shape_param_name(const ::testing::TestParamInfo<int>& param) {
  return std::string(shape_name(static_cast<HazardShape>(param.param)));
}

INSTANTIATE_TEST_SUITE_P(Shapes, LoweredFarPair, ::testing::ValuesIn(sim_test::lowered_shapes()),
                         shape_param_name);

}  // namespace
}  // namespace racetrack::replay_test
