// The replay on valid but extreme traces (issue #15; docs/fuzzing.md): an
// access as large as the address space, a traced hour-long kernel, and more
// streams than it will start threads for.
#include <gmock/gmock.h>

#include <chrono>

#include "replay_test_support.h"

namespace racetrack::replay_test {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

// A region of 2^64 - 1 bytes: the plan's sums used to wrap and leave an
// unscaled arena far past the memory limit.
TEST(ReplayRobustness, AccessAsLargeAsTheAddressSpaceIsScaled) {
  TempDir dir;
  TraceBuilder b;
  const auto s1 = b.stream("s1", v1::ROLE_COMPUTE);
  const auto s2 = b.stream("s2", v1::ROLE_OTHER);
  const Buffer all = b.alloc_at("everything", UINT64_MAX, v1::ORIGIN_CUDA_MALLOC, {}, 0);
  b.kernel(s1, "w", {}, {all});
  b.kernel(s2, "r", {all}, {});
  const std::string path = dir.path("huge.rtrace");
  ASSERT_TRUE(save_trace(b.take(), path));
  auto program = des::load_program(path, des::CostModel{});
  ASSERT_TRUE(program) << program.error().describe();
  for (uint64_t limit : {uint64_t{0}, uint64_t{1} << 20}) {
    const auto plan = replay::ArenaPlan::build(*program, 4096, limit);
    EXPECT_EQ(plan.traced_bytes(), UINT64_MAX);
    EXPECT_LT(plan.scale(), 1.0);
    const uint64_t cap = limit ? limit : replay::ArenaPlan::kMaxGranules * 4096;
    for (auto space : plan.spaces()) EXPECT_LE(plan.arena_bytes(space), cap + 3 * 4096);
  }
  replay::ReplayOptions o;
  o.traced_timing = false;
  o.memory_limit = 1 << 20;
  const replay::ReplayReport r = replay(path, o);
  EXPECT_EQ(r.runs, 1u);
  EXPECT_LT(r.scale, 1.0);
}

// A valid one-hour kernel: traced timing fits the run into its budget
// instead of sleeping an hour.
TEST(ReplayRobustness, TracedTimingFitsTheBudget) {
  TempDir dir;
  TraceBuilder b;
  const auto s = b.stream("s", v1::ROLE_COMPUTE);
  const auto x = b.device_buffer("X", 4096);
  b.kernel(s, "hour", {}, {x}, {.duration_ns = int64_t{3600} * 1'000'000'000});
  b.kernel(s, "next", {x}, {});
  const std::string path = dir.path("hour.rtrace");
  ASSERT_TRUE(save_trace(b.take(), path));
  replay::ReplayOptions o;
  o.traced_budget_ns = 50'000'000;
  const auto started = std::chrono::steady_clock::now();
  const replay::ReplayReport r = replay(path, o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(seconds, 10.0);
  EXPECT_LT(r.time_scale, 1e-4);
  EXPECT_GT(r.time_scale, 0.0);
  EXPECT_EQ(r.corrupted_reads, 0u);
}

// One CPU thread per stream: past the limit a clear error, not
// std::system_error.
TEST(ReplayRobustness, TooManyStreamsIsAClearError) {
  TempDir dir;
  TraceBuilder b;
  for (size_t i = 0; i <= replay::kMaxReplayThreads; ++i)
    b.kernel(b.stream("", v1::ROLE_COMPUTE), "k", {}, {});
  const std::string path = dir.path("streams.rtrace");
  ASSERT_TRUE(save_trace(b.take(), path));
  auto r = replay::replay_file(path, {});
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().describe(),
              HasSubstr("this trace needs 1026 (1025 streams, 1 host threads), more than "
                        "racetrack's limit of 1024"));
}

}  // namespace
}  // namespace racetrack::replay_test
