// The replayed timeline (-o): a valid trace in the replayed clock domain
// whose times are consistent (device start before end, each stream's ops
// one after another in FIFO order, traced durations honoured with
// --timing traced), and replaying it again gives exactly the same plan.
#include <map>

#include "racetrack/traces/trace_io.h"
#include "racetrack/traces/validate.h"
#include "replay_test_support.h"

namespace racetrack::replay_test {
namespace {

using testing::TempDir;

std::string synth_trace(const TempDir& dir) {
  const std::string path = dir.path("synth.rtrace");
  SynthOptions o = small_synth(true, racetrack::Schedule::k1F1B, 3, kSanitized ? 1500 : 4000);
  o.inject[0] = 1;
  o.inject[1] = 1;
  sim_test::synth_to(path, o);
  return path;
}

// Some samples (buggy and fixed) and a synth trace with hazards.
std::vector<std::string> traces(const TempDir& dir) {
  std::vector<std::string> out;
  for (const Sample& s : sim_test::manifest())
    if (s.file.find("c1_") != std::string::npos || s.file.find("megatron") != std::string::npos ||
        s.file.find("host_join") != std::string::npos)
      out.push_back(s.file);
  out.push_back(synth_trace(dir));
  return out;
}

void expect_consistent_timeline(const std::string& source, const std::string& replayed) {
  const ValidationReport valid = validate_file(replayed);
  EXPECT_TRUE(valid.errors.empty()) << replayed << ": " << valid.errors.front().describe();
  auto in = load_trace(source);
  auto out = load_trace(replayed);
  ASSERT_TRUE(in) << in.error().describe();
  ASSERT_TRUE(out) << out.error().describe();
  EXPECT_EQ(out->header().clock_domain(), v1::CLOCK_DOMAIN_REPLAYED);
  EXPECT_NE(out->header().producer().find("racetrack-replay"), std::string::npos) << out->header().producer();
  ASSERT_EQ(out->ops_size(), in->ops_size());
  std::map<uint32_t, std::vector<const v1::Op*>> by_stream;  // in submission order
  size_t device_ops = 0;
  for (int k = 0; k < out->ops_size(); ++k) {
    const v1::Op& op = out->ops(k);
    EXPECT_EQ(op.seq(), in->ops(k).seq());
    EXPECT_LE(op.host_start(), op.host_end()) << "#" << op.seq();
    if (!op.has_device_start()) continue;
    ++device_ops;
    EXPECT_TRUE(op.has_device_end());
    EXPECT_LE(op.device_start(), op.device_end()) << "#" << op.seq();
    EXPECT_GE(op.device_start(), op.host_start()) << "#" << op.seq() << " ran before it was issued";
    by_stream[op.stream()].push_back(&op);
  }
  EXPECT_GT(device_ops, 0u);
  for (const auto& [stream, ops] : by_stream)
    for (size_t k = 1; k < ops.size(); ++k)
      EXPECT_GE(ops[k]->device_start(), ops[k - 1]->device_end())
          << "stream " << stream << ": #" << ops[k]->seq() << " started before #" << ops[k - 1]->seq()
          << " ended";
}

TEST(ReplayedTimeline, ValidatesInTheReplayedClockDomainWithFifoStreams) {
  TempDir dir;
  int n = 0;
  for (const std::string& path : traces(dir)) {
    SCOPED_TRACE(path);
    for (const char* extension : {".rtrace", ".pbtxt"}) {
      replay::ReplayOptions o = stress_options(1);
      o.output = dir.path("replayed" + std::to_string(n++) + extension);
      replay(path, o);
      expect_consistent_timeline(path, o.output);
    }
  }
}

// With --timing traced every op takes at least its traced (or modelled)
// duration.
TEST(ReplayedTimeline, TracedTimingHonoursDurations) {
  TempDir dir;
  for (const char* name : {"c1_reload_not_waited.clean.pbtxt", "megatron_inline_reload.race.pbtxt"}) {
    const std::string path = sim_test::kSamples + "/" + name;
    SCOPED_TRACE(path);
    replay::ReplayOptions o;
    o.output = dir.path("traced.rtrace");
    replay(path, o);
    expect_consistent_timeline(path, o.output);
    const des::Program p = sim_test::load(path);
    auto out = load_trace(o.output);
    ASSERT_TRUE(out);
    ASSERT_EQ(static_cast<size_t>(out->ops_size()), p.ops.size());
    for (size_t k = 0; k < p.ops.size(); ++k) {
      const v1::Op& op = out->ops(static_cast<int>(k));
      EXPECT_GE(op.host_end() - op.host_start(), p.ops[k].call_ns) << "#" << op.seq();
      if (p.ops[k].device) {
        EXPECT_GE(op.device_end() - op.device_start(), p.ops[k].device_ns) << "#" << op.seq();
      }
    }
  }
}

void expect_same_plan(const replay::ArenaPlan& a, const replay::ArenaPlan& b) {
  EXPECT_EQ(a.scale(), b.scale());
  EXPECT_EQ(a.granule(), b.granule());
  EXPECT_EQ(a.traced_bytes(), b.traced_bytes());
  ASSERT_EQ(a.islands().size(), b.islands().size());
  for (size_t k = 0; k < a.islands().size(); ++k) {
    const replay::Island &x = a.islands()[k], &y = b.islands()[k];
    EXPECT_EQ(std::tie(x.space, x.lo, x.hi, x.arena_base, x.arena_bytes),
              std::tie(y.space, y.lo, y.hi, y.arena_base, y.arena_bytes))
        << "island " << k;
  }
}

TEST(ReplayOfAReplay, GivesTheSamePlanAndVerdicts) {
  TempDir dir;
  int n = 0;
  for (const std::string& path : traces(dir)) {
    SCOPED_TRACE(path);
    replay::ReplayOptions o = stress_options(2);
    o.output = dir.path("first" + std::to_string(n) + ".rtrace");
    const replay::ReplayReport first = replay(path, o);
    o.output = dir.path("second" + std::to_string(n++) + ".rtrace");
    const replay::ReplayReport second = replay(dir.path("first" + std::to_string(n - 1) + ".rtrace"), o);

    const des::Program traced = sim_test::load(path);
    const des::Program replayed = sim_test::load(dir.path("first" + std::to_string(n - 1) + ".rtrace"));
    const des::Program twice = sim_test::load(o.output);
    for (uint64_t granule : {uint64_t{4096}, uint64_t{64}})
      for (uint64_t limit : {uint64_t{0}, uint64_t{1} << 14}) {
        SCOPED_TRACE("granule " + std::to_string(granule) + ", limit " + std::to_string(limit));
        const auto plan = replay::ArenaPlan::build(traced, granule, limit);
        expect_same_plan(plan, replay::ArenaPlan::build(replayed, granule, limit));
        expect_same_plan(plan, replay::ArenaPlan::build(twice, granule, limit));
      }
    EXPECT_EQ(first.islands, second.islands);
    EXPECT_EQ(first.traced_bytes, second.traced_bytes);
    ASSERT_EQ(first.hazards.size(), second.hazards.size());
    for (size_t k = 0; k < first.hazards.size(); ++k) {
      const replay::ReplayHazard &a = first.hazards[k], &b = second.hazards[k];
      EXPECT_EQ(a.hazard.first.seq, b.hazard.first.seq);
      EXPECT_EQ(a.hazard.second.seq, b.hazard.second.seq);
      if (a.hazard.confidence == race::Confidence::kDefinite) {
        EXPECT_GE(a.manifested_runs, 1u);
        EXPECT_GE(b.manifested_runs, 1u);
      }
    }
  }
}

}  // namespace
}  // namespace racetrack::replay_test
