// `racetrack info` on times at the ends of int64, which the format allows:
// the span is computed without signed overflow (it printed -0.001 us).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "racetrack/traces/trace_io.h"
#include "run_cli.h"

namespace racetrack {
namespace {

using ::testing::HasSubstr;

TEST(CliExtremeTimes, InfoSpansTheWholeRange) {
  testing::TempDir dir;
  TraceBuilder b;
  const auto s = b.stream("s", v1::ROLE_COMPUTE);
  b.kernel(s, "k", {}, {});
  b.last_op().set_host_start(INT64_MIN);
  b.last_op().set_host_end(INT64_MAX);
  const std::string path = dir.path("times.rtrace");
  ASSERT_TRUE(save_trace(b.take(), path));
  const testing::CliRun r = testing::run_cli(dir, "info " + testing::shell_quote(path));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("spanning 18446744074 s"));  // 2^64 - 1 ns, in readable units
}

}  // namespace
}  // namespace racetrack
