// Value tracking's byte ranges (docs/sim.md, "Values"): a write over part
// of an earlier one keeps the rest of it, whether the new write starts where
// the old did (the in-place path) or inside it, and the sequential
// reference and the run agree on a trace with one stream.
#include "sim_test_support.h"

namespace racetrack::sim_test {
namespace {

using testing::TempDir;

TEST(SimValues, PartialWritesKeepTheRestOfEarlierOnes) {
  TempDir dir;
  TraceBuilder b;
  const auto s = b.stream("s", v1::ROLE_COMPUTE);
  const auto x = b.device_buffer("X", 100);
  b.kernel(s, "all", {}, {x});                   // op 0: [0, 100)
  b.kernel(s, "prefix", {}, {x.slice(0, 40)});   // op 1: starts where op 0 did
  b.kernel(s, "again", {}, {x.slice(0, 40)});    // op 2: exactly op 1's bytes
  b.kernel(s, "middle", {}, {x.slice(60, 20)});  // op 3: inside op 0's rest
  b.kernel(s, "reader", {x}, {});                // op 4
  const std::string path = dir.path("values.rtrace");
  ASSERT_TRUE(save_trace(b.take(), path));
  auto program = des::load_program(path, des::CostModel{});
  ASSERT_TRUE(program) << program.error().describe();
  const des::Program& p = *program;
  ASSERT_EQ(p.ops.size(), 5u);
  ASSERT_EQ(p.ops[4].access_count, 1u);

  const des::SequentialReference reference(p);
  des::ValueTracker tracker(p, reference);
  const auto [begin, end] = reference.expected(p.ops[4].accesses);
  const uint64_t base = p.accesses[p.ops[4].accesses].lo;
  std::vector<std::tuple<uint64_t, uint64_t, uint32_t>> seen;
  for (const des::ExpectedWriter* e = begin; e != end; ++e)
    seen.emplace_back(e->lo - base, e->hi - base, e->writer);
  const std::vector<std::tuple<uint64_t, uint64_t, uint32_t>> want = {
      {0, 40, 2}, {40, 60, 0}, {60, 80, 3}, {80, 100, 0}};
  EXPECT_EQ(seen, want);

  auto run = des::run(p, {}, &tracker);
  ASSERT_TRUE(run) << run.error().describe();
  tracker.finish();
  EXPECT_TRUE(tracker.mismatches().empty());
}

}  // namespace
}  // namespace racetrack::sim_test
