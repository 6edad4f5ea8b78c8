// The same trace, options and seed give byte-identical reports and
// timelines; another seed under jitter gives another schedule.
#include "sim_test_support.h"

namespace racetrack::sim_test {
namespace {

using testing::read_bytes;
using testing::TempDir;

// Two runs of `path` with everything switched on, their timelines written
// in `extension`'s encoding.
void expect_deterministic(const TempDir& dir, const std::string& path, const std::string& extension) {
  SCOPED_TRACE(path);
  des::SimOptions o;
  o.schedule.jitter_sigma = 0.4;
  o.schedule.seed = 11;
  o.adversarial = true;
  o.apply_fixes = true;
  o.jitter_schedules = 2;
  o.output = dir.path("a" + extension);
  const std::string a = des::format_sim_json(simulate(path, o));
  o.output = dir.path("b" + extension);
  const std::string b = des::format_sim_json(simulate(path, o));
  EXPECT_EQ(a, b);
  const std::string timeline = read_bytes(dir.path("a" + extension));
  EXPECT_FALSE(timeline.empty());
  EXPECT_EQ(timeline, read_bytes(dir.path("b" + extension)));
}

TEST(Determinism, SameSeedGivesIdenticalReportsAndTimelines) {
  TempDir dir;
  expect_deterministic(dir, kSamples + "/c1_reload_not_waited.race.pbtxt", ".pbtxt");
  SynthOptions so = small_synth(true);
  so.inject.fill(1);
  const std::string synth = dir.path("synth.rtrace");
  synth_to(synth, so);
  expect_deterministic(dir, synth, ".rtrace");
  expect_deterministic(dir, synth, ".json");
}

TEST(Determinism, AnotherSeedUnderJitterGivesAnotherMakespan) {
  TempDir dir;
  const std::string path = dir.path("synth.rtrace");
  synth_to(path, small_synth(true));
  const des::Program p = load(path);
  des::Schedule s;
  s.jitter_sigma = 0.5;
  s.seed = 1;
  auto one = des::run(p, s);
  s.seed = 2;
  auto two = des::run(p, s);
  ASSERT_TRUE(one && two);
  EXPECT_NE(one->makespan_ns, two->makespan_ns);
  s.seed = 1;
  auto again = des::run(p, s);
  ASSERT_TRUE(again);
  EXPECT_EQ(one->makespan_ns, again->makespan_ns);
}

}  // namespace
}  // namespace racetrack::sim_test
