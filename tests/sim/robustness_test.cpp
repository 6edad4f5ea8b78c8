// The simulator on valid but extreme traces and, read without validation,
// on traces it cannot model (issue #15; docs/fuzzing.md): no overflow, no
// read past its tables, and a bounded number of runs whatever the number of
// hazards.
#include <gmock/gmock.h>

#include "sim_test_support.h"

namespace racetrack::sim_test {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

// Ops out of seq order make Program::index_of meaningless: the loader,
// given a source that does not validate, refuses them (it used to let
// `sim --apply-fixes` read past the op vector).
TEST(SimRobustness, SeqsThatDoNotIncreaseAreRefused) {
  TempDir dir;
  TraceBuilder b;
  const auto s = b.stream("s", v1::ROLE_COMPUTE);
  const auto x = b.device_buffer("X", 64);
  b.kernel(s, "w", {}, {x});
  b.kernel(s, "r", {x}, {});
  v1::Chunk trace = b.take();
  trace.mutable_ops(1)->set_seq(1);
  const std::string path = dir.path("seqs.rtrace");
  ASSERT_TRUE(save_trace(trace, path));
  auto source = TraceSource::open_unchecked(path);
  ASSERT_TRUE(source);
  auto program = des::load_program(*source, des::CostModel{});
  ASSERT_FALSE(program);
  EXPECT_THAT(program.error().describe(),
              HasSubstr("op seq 1: seq does not increase (previous op was seq 1)"));
  des::SimOptions o;
  o.apply_fixes = true;
  auto report = des::simulate_file(path, o);  // the validated path says the same
  ASSERT_FALSE(report);
  EXPECT_THAT(report.error().describe(), HasSubstr("seq does not increase"));
}

// Host and device times at the ends of int64 are valid; durations and the
// timeline saturate instead of overflowing (UBSan fails the sanitizer build
// otherwise).
TEST(SimRobustness, ExtremeTimesSaturate) {
  TempDir dir;
  TraceBuilder b;
  const auto s1 = b.stream("s1", v1::ROLE_COMPUTE);
  const auto s2 = b.stream("s2", v1::ROLE_OTHER);
  const auto x = b.device_buffer("X", 64);
  b.kernel(s1, "w", {}, {x});
  b.last_op().set_host_start(INT64_MIN);
  b.last_op().set_host_end(INT64_MAX);
  b.last_op().set_device_start(INT64_MIN);
  b.last_op().set_device_end(INT64_MAX);
  b.kernel(s2, "r", {x}, {});
  b.last_op().set_device_start(0);
  b.last_op().set_device_end(INT64_MAX);
  const std::string path = dir.path("times.rtrace");
  ASSERT_TRUE(save_trace(b.take(), path));
  des::SimOptions o;
  o.adversarial = true;
  o.apply_fixes = true;
  o.jitter_schedules = 1;
  const des::SimReport r = simulate(path, o);
  EXPECT_EQ(r.makespan_ns, INT64_MAX);
  ASSERT_TRUE(r.what_if.ran);
  EXPECT_TRUE(std::isfinite(r.what_if.makespan_change_pct));
  ASSERT_EQ(r.hazards.size(), 1u);
  EXPECT_EQ(r.hazards[0].schedule, "adversarial");
}

// Every adversarial run is a whole simulation: at most max_adversarial of
// them, and as many again in the what-if, however many hazards there are.
TEST(SimRobustness, AdversarialRunsAreBounded) {
  TempDir dir;
  TraceBuilder b;
  const auto s1 = b.stream("s1", v1::ROLE_COMPUTE);
  const auto s2 = b.stream("s2", v1::ROLE_OTHER);
  for (int i = 0; i < 10; ++i) {
    const auto x = b.device_buffer("X", 64);
    b.kernel(s1, "w", {}, {x});
    b.kernel(s2, "r", {x}, {});
  }
  const std::string path = dir.path("many.rtrace");
  ASSERT_TRUE(save_trace(b.take(), path));
  des::SimOptions o;
  o.adversarial = true;
  o.apply_fixes = true;
  o.max_adversarial = 3;
  o.jitter_schedules = 2;
  const des::SimReport r = simulate(path, o);
  ASSERT_EQ(r.hazards.size(), 10u);
  EXPECT_EQ(std::count_if(r.hazards.begin(), r.hazards.end(),
                          [](const des::HazardVerdict& v) { return v.schedule == "adversarial"; }),
            3);
  EXPECT_EQ(r.what_if.schedules_tried, 1u + 3u + 2u);
}

}  // namespace
}  // namespace racetrack::sim_test
