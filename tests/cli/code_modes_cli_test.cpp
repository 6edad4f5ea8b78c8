// Machine-code modes on the command line: check, sim and replay use the
// modes a trace's modules give by default and say so; --no-code-modes turns
// them off; every one of them documents both flags.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "run_cli.h"
#include "test_support.h"

namespace racetrack {
namespace {

using testing::CliRun;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::shell_quote;
using testing::TempDir;

class CodeModesCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const CliRun made = racetrack(
        "synth --ops 5000 --layers 2 --microbatches 2 --activation-bytes 1048576 "
        "--modes code --inject all -o " +
        trace_);
    ASSERT_EQ(made.code, 0) << made.err;
  }
  CliRun racetrack(const std::string& args) { return testing::run_cli(dir_, args); }
  TempDir dir_;
  const std::string trace_ = shell_quote(dir_.path("code.rtrace"));
};

TEST_F(CodeModesCli, CheckSaysTheModesCameFromTheMachineCode) {
  const CliRun on = racetrack("check --no-fix --min-confidence possible " + trace_);
  EXPECT_EQ(on.code, 1) << on.err;
  EXPECT_THAT(on.out, HasSubstr(" from machine code, 0 from --kernel-modes rules, 0 unknown"));
  EXPECT_THAT(on.out, HasSubstr("(machine code)"));
  const CliRun off = racetrack("check --no-fix --min-confidence possible --no-code-modes " + trace_);
  EXPECT_EQ(off.code, 1) << off.err;
  EXPECT_THAT(off.out, Not(HasSubstr("(machine code)")));
  EXPECT_THAT(off.out, Not(HasSubstr("from machine code")));
  EXPECT_THAT(off.out, HasSubstr("may write (mode unknown), inferred extent"));
}

TEST_F(CodeModesCli, SimAndReplayListTheModeSourceOfKernelSides) {
  const CliRun sim = racetrack("sim --min-confidence possible " + trace_);
  EXPECT_NE(sim.code, 2) << sim.err;
  EXPECT_THAT(sim.out, HasSubstr("[mode: machine-code]"));
  const CliRun blind = racetrack("sim --min-confidence possible --no-code-modes " + trace_);
  EXPECT_NE(blind.code, 2) << blind.err;
  EXPECT_THAT(blind.out, HasSubstr("[mode: unknown]"));
  EXPECT_THAT(blind.out, Not(HasSubstr("[mode: machine-code]")));
}

TEST_F(CodeModesCli, EveryCommandDocumentsTheFlags) {
  for (const char* command : {"check", "sim", "replay"}) {
    const CliRun help = racetrack(std::string(command) + " --help");
    EXPECT_EQ(help.code, 0) << command;
    EXPECT_THAT(help.out, HasSubstr("--no-code-modes")) << command;
    EXPECT_THAT(help.out, HasSubstr("--modes-cache")) << command;
  }
  EXPECT_THAT(racetrack("view --help").out, HasSubstr("--no-code-modes"));
}

}  // namespace
}  // namespace racetrack
