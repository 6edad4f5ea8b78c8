// The simulator never runs an op before what it happens-after: checked
// against racetrack::hb::HappensBefore applied to the trace independently,
// on the samples and on synth traces under jitter, slowdowns and held-back
// ops.
#include <random>

#include "racetrack/hb/happens_before.h"
#include "racetrack/race/pdl.h"
#include "sim_test_support.h"

namespace racetrack::sim_test {
namespace {

using testing::TempDir;

// Checks every op of `path` against the times of `run`. For an agent a clock
// covers, its latest covered op is the last to finish (a thread's calls and a
// stream's ops finish in order), so that op alone is checked: a device op may
// not start before it ends, a host call may not start before what its thread
// had already joined ends, nor return before what it joins ends.
void expect_respects_happens_before(const std::string& path, const des::RunResult& run) {
  auto trace = load_trace(path);
  ASSERT_TRUE(trace) << trace.error().describe();
  ASSERT_EQ(run.times.size(), static_cast<size_t>(trace->ops_size()));
  hb::HappensBefore hb;
  hb.add_entities(*trace);
  // Rule 1a's wait facts, as the simulator's loader reads them.
  TraceTables tables;
  tables.add(*trace);
  race::PdlWaitFacts pdl(nullptr);
  pdl.add_modules(*trace, tables);
  hb.set_pdl_wait_lookup(pdl.lookup(tables));
  std::vector<std::vector<uint32_t>> by_tick;  // agent -> op index by tick - 1
  auto note = [&](hb::Epoch e, uint32_t i) {
    if (by_tick.size() <= e.agent) by_tick.resize(e.agent + 1);
    if (by_tick[e.agent].size() < e.tick) by_tick[e.agent].resize(e.tick, i);
  };
  int failures = 0;
  // `own_device`: whether op i's own device part may be a dependency (of its
  // host return, for blocking calls), not only earlier ops.
  // `pdl_of`: op i's order, whose rule 1a ticks of its own stream it is not ordered after.
  auto check = [&](const hb::VectorClock& clock, uint32_t i, int64_t bound, const char* what, bool own_device,
                   const hb::OpOrder* pdl_of = nullptr) {
    for (uint32_t agent = 0; agent < clock.size() && failures < 10; ++agent) {
      uint64_t tick = clock.get(agent);
      const bool thread = hb.agent(agent).kind == hb::AgentKind::kThread;
      while (tick > 0 && by_tick[agent][tick - 1] == i && (thread || !own_device)) --tick;
      if (pdl_of && agent == pdl_of->epoch.agent && pdl_of->pdl.contains(tick)) tick = pdl_of->pdl.lo - 1;
      if (tick == 0) continue;
      const uint32_t a = by_tick[agent][tick - 1];
      const int64_t end = thread ? run.times[a].host_end : run.times[a].device_end;
      if (end > bound) {
        ++failures;
        ADD_FAILURE() << "op #" << trace->ops(static_cast<int>(i)).seq() << " " << what << " at " << bound
                      << ", before #" << trace->ops(static_cast<int>(a)).seq() << " ends at " << end;
      }
    }
  };
  for (uint32_t i = 0; i < run.times.size(); ++i) {
    const v1::Op& op = trace->ops(static_cast<int>(i));
    const hb::VectorClock joined_before = hb.thread_clock(op.thread());
    const hb::OpOrder order = hb.apply(op);
    note(order.epoch, i);
    const uint32_t own_thread = hb.thread_agent(op.thread());
    note({own_thread, hb.thread_clock(op.thread()).get(own_thread)}, i);

    const des::OpTimes& t = run.times[i];
    if (hb::is_device_op(op)) check(*order.clock, i, t.device_start, "device start", false, &order);
    check(joined_before, i, t.host_start, "host start", false);
    check(hb.thread_clock(op.thread()), i, t.host_end, "host end", true);
    // A staged copy's call returns only once it has read its source, i.e.
    // once its device part has started (docs/ordering-rules.md 6b).
    if (order.staged_clock && t.host_end < t.device_start && failures++ < 10)
      ADD_FAILURE() << "staged copy #" << op.seq() << " returned at " << t.host_end
                    << ", before reading its source at " << t.device_start;
  }
}

des::RunResult must_run(const des::Program& p, const des::Schedule& s) {
  auto r = des::run(p, s);
  EXPECT_TRUE(r) << r.error().describe();
  return r ? std::move(*r) : des::RunResult{};
}

// Schedules that disturb `p` in every way the simulator offers.
std::vector<des::Schedule> disturbed_schedules(const des::Program& p, int64_t makespan) {
  std::vector<des::Schedule> out(1);  // as given
  std::mt19937_64 rng(7);
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    des::Schedule s;
    s.seed = seed;
    s.jitter_sigma = 1.0;
    s.kernel_slots = static_cast<uint32_t>(1 + seed % 2);  // contention too
    for (uint32_t stream : p.stream_ids)
      s.stream_slowdown[stream] = 0.2 + 5.0 * std::generate_canonical<double, 32>(rng);
    for (int k = 0; k < 4; ++k)
      s.delays[static_cast<uint32_t>(rng() % p.ops.size())] = static_cast<int64_t>(rng() % (makespan + 1));
    out.push_back(std::move(s));
  }
  return out;
}

void expect_respected_under_disturbed_schedules(const std::string& path) {
  SCOPED_TRACE(path);
  const des::Program p = load(path);
  ASSERT_FALSE(p.ops.empty());
  const int64_t makespan = must_run(p, {}).makespan_ns;
  for (const des::Schedule& s : disturbed_schedules(p, makespan)) {
    SCOPED_TRACE("seed " + std::to_string(s.seed) + ", jitter " + std::to_string(s.jitter_sigma));
    expect_respects_happens_before(path, must_run(p, s));
  }
}

TEST(Ordering, SamplesRunNothingBeforeItsPredecessors) {
  for (const Sample& s : manifest()) expect_respected_under_disturbed_schedules(s.file);
  // Every op kind, graph launches and blocking calls included.
  TempDir dir;
  const std::string standard = dir.path("standard.pbtxt");
  ASSERT_TRUE(save_trace(testing::standard_trace(3), standard));
  expect_respected_under_disturbed_schedules(standard);
}

TEST(Ordering, SynthTracesRunNothingBeforeItsPredecessors) {
  TempDir dir;
  for (bool known : {true, false})
    for (auto schedule : {racetrack::Schedule::k1F1B, racetrack::Schedule::kSequential}) {
      SynthOptions o = small_synth(known, schedule);
      o.inject.fill(1);  // hazards do not change the ordering, but exercise more shapes
      const std::string path = dir.path("ordering.rtrace");
      synth_to(path, o);
      expect_respected_under_disturbed_schedules(path);
    }
}

}  // namespace
}  // namespace racetrack::sim_test
