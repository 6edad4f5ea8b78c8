// Every command but capture runs under a stated memory limit
// (--max-memory-mib): past it, the command says which limit it reached and
// exits 2, and its input is untouched; within it, nothing changes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "memory_limit.h"
#include "run_cli.h"
#include "test_support.h"

namespace racetrack {
namespace {

using ::testing::HasSubstr;
using testing::CliRun;
using testing::shell_quote;
using testing::TempDir;

class MemoryLimit : public ::testing::Test {
 protected:
  void SetUp() override {
    trace_ = dir_.path("t.rtrace");
    const CliRun made = run("synth -o " + shell_quote(trace_) + " --ops 200000 --seed 2");
    ASSERT_EQ(made.code, 0) << made.err;
    bytes_ = testing::read_bytes(trace_);
  }
  CliRun run(const std::string& args) { return testing::run_cli(dir_, args); }

  TempDir dir_;
  std::string trace_, bytes_;
};

TEST_F(MemoryLimit, PastTheLimitACommandSaysSoAndExits2) {
  if (!cli::memory_limit_enforced()) GTEST_SKIP() << "sanitizer builds do not enforce the limit (their shadow memory would count)";
  // sim keeps the whole program: a 200k-op trace needs far more than 40 MiB.
  const std::string out = dir_.path("timeline.rtrace");
  const CliRun sim = run("sim " + shell_quote(trace_) + " --max-memory-mib 40 -o " + shell_quote(out));
  EXPECT_EQ(sim.code, 2) << sim.out << sim.err;
  EXPECT_THAT(sim.err, HasSubstr("racetrack sim: out of memory: it needs more than its limit of 40 MiB"));
  EXPECT_THAT(sim.err, HasSubstr("--max-memory-mib"));
  EXPECT_FALSE(std::filesystem::exists(out)) << "no partial output";
  EXPECT_EQ(testing::read_bytes(trace_), bytes_) << "the input was changed";
  // No temporary output is left beside its target (whatever was being
  // written is removed: tests/traces/output_file_test.cpp).
  const CliRun exported = run("export " + shell_quote(trace_) + " " + shell_quote(dir_.path("t.json")) +
                              " --max-memory-mib 40");
  EXPECT_EQ(exported.code, 2) << exported.out << exported.err;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.root()))
    EXPECT_THAT(entry.path().filename().string(), ::testing::Not(HasSubstr(".racetrack-"))) << "a temporary file left";
  const CliRun check = run("check " + shell_quote(trace_) + " --max-memory-mib 40");
  EXPECT_EQ(check.code, 2) << check.out << check.err;
  EXPECT_THAT(check.err, HasSubstr("racetrack check: out of memory"));
  EXPECT_THAT(check.err, ::testing::Not(HasSubstr("racetrack check reads"))) << "check cannot point to itself";
  EXPECT_THAT(sim.err, HasSubstr("racetrack check reads a trace of any length in bounded memory"));
}

TEST_F(MemoryLimit, WithinTheLimitNothingChanges) {
  const CliRun limited = run("sim " + shell_quote(trace_) + " --max-memory-mib 2048 --format json");
  const CliRun free = run("sim " + shell_quote(trace_) + " --format json");
  EXPECT_EQ(limited.code, 0) << limited.err;
  EXPECT_EQ(limited.out, free.out);
  EXPECT_EQ(run("check " + shell_quote(trace_) + " --max-memory-mib 1024").code, 0);
}

TEST_F(MemoryLimit, EveryCommandButCaptureStatesItsLimit) {
  const std::string stated = std::to_string(cli::default_memory_limit_mib()) + " MiB here";
  for (const char* command :
       {"check", "sim", "replay", "export", "why", "info", "convert", "validate", "dump", "modes", "diff"}) {
    const CliRun help = run(std::string(command) + " --help");
    EXPECT_THAT(help.out, HasSubstr("--max-memory-mib")) << command;
    EXPECT_THAT(help.out, HasSubstr(stated)) << command;
  }
  EXPECT_THAT(run("capture --help").out, ::testing::Not(HasSubstr("--max-memory-mib")));
  const CliRun tiny = run("check " + shell_quote(trace_) + " --max-memory-mib 8");
  EXPECT_EQ(tiny.code, 2);
  EXPECT_THAT(tiny.err, HasSubstr("--max-memory-mib"));
}

TEST(MemoryLimitDefault, IsMostOfThisMachinesMemory) {
  const uint64_t mib = cli::default_memory_limit_mib();
  const uint64_t machine = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE)) >> 20;
  EXPECT_LE(mib, machine * 8 / 10 + 1);
  EXPECT_GE(mib, 16u);
}

}  // namespace
}  // namespace racetrack
