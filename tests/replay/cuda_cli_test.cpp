// `racetrack replay --backend cuda` where no GPU replay is possible (CI):
// whatever else is asked (JSON, -o, --stress), it exits 2 before doing
// anything, writes nothing, and names what is missing: the driver, a GPU,
// or the backend in this build.
#include "replay_test_support.h"
#include "run_cli.h"

namespace racetrack::replay_test {
namespace {

using testing::CliRun;
using testing::run_cli;
using testing::shell_quote;
using testing::TempDir;

TEST(ReplayCudaCli, WithoutAGpuNamesWhatIsMissingAndExitsTwo) {
  std::string why;
  if (replay::cuda_available(why)) GTEST_SKIP() << "this machine and build can replay on a GPU";
  const bool names_it = why.find("driver") != std::string::npos || why.find("GPU") != std::string::npos ||
                        why.find("build") != std::string::npos;
  EXPECT_TRUE(names_it) << why;
  TempDir dir;
  const std::string out = dir.path("replayed.rtrace");
  for (const char* sample : {"c1_reload_not_waited.race.pbtxt", "host_join_thread.clean.pbtxt"}) {
    const CliRun r =
        run_cli(dir, "replay --backend cuda --stress --repeat 2 --format json -o " + shell_quote(out) + " " +
                         shell_quote(sim_test::kSamples + "/" + sample));
    EXPECT_EQ(r.code, 2) << sample;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("--backend cuda: " + why), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

}  // namespace
}  // namespace racetrack::replay_test
