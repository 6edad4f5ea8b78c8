// Machine-code modes on the command line: check, sim and replay use the
// modes a trace's modules give by default and say so; --no-code-modes turns
// them off; every one of them documents both flags.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "racetrack/code/access_modes.h"
#include "racetrack/traces/builder.h"
#include "racetrack/traces/sha256.h"
#include "racetrack/traces/trace_io.h"
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

// A kernel whose machine code also reaches memory through a loaded pointer:
// sim and replay, like check, say where the modes came from and that those
// accesses are not checked, in text and JSON.
TEST_F(CodeModesCli, SimAndReplayNameKernelsWithIndirectAccess) {
  TraceBuilder b;
  const StreamId compute = b.stream("compute", v1::ROLE_COMPUTE);
  const StreamId copy = b.stream("d2h", v1::ROLE_D2H);
  const Buffer segment = b.device_buffer("segment", 1 << 20);
  const Buffer a = b.alloc_at("a", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, compute, segment.base);
  const Buffer host = b.pinned_buffer("host", 4096);
  v1::FunctionCode f;
  f.set_name(b.intern("gather_kernel"));
  f.add_words(v1::WORD_WRITE);
  f.set_indirect_access(true);
  f.set_analyzer_version(code::kAnalyzerVersion);
  const uint32_t module = b.module("test-module", "", Sha256::hex("m", 1), {f});
  b.memcpy(copy, host, a);
  b.kernel(compute, "gather_kernel", {}, {}, {.raw_words_only = true, .scalars = {a.base}});
  b.last_op().mutable_kernel()->set_module(module);
  const std::string path = dir_.path("indirect.rtrace");
  ASSERT_TRUE(save_trace(b.take(), path));
  for (const char* command : {"sim --adversarial", "replay --stress --timing fast"}) {
    const CliRun text = racetrack(std::string(command) + " " + shell_quote(path));
    EXPECT_NE(text.code, 2) << command << ": " << text.err;
    EXPECT_THAT(text.out, HasSubstr("kernel modes: 1 launch(es); 0 recorded, 1 from machine code"))
        << command;
    EXPECT_THAT(text.out, HasSubstr("also reach memory through pointers no argument word gives")) << command;
    EXPECT_THAT(text.out, HasSubstr("  gather_kernel\n")) << command;
    const CliRun json = racetrack(std::string(command) + " --format json " + shell_quote(path));
    EXPECT_THAT(json.out, HasSubstr("\"indirect_kernels\": [\n      \"gather_kernel\""))
        << command << json.out;
  }
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

// why answers as check does: a PDL secondary whose machine code has no
// grid-dependency wait is not ordered after its primary; one that waits is,
// through that wait (rule 1a).
TEST(WhyCodeModes, PdlSecondaryIsOrderedOnlyThroughItsWait) {
  TempDir dir;
  const std::string samples = std::string(RACETRACK_SAMPLES_DIR) + "/c15_pdl_wait_missing";
  const CliRun race = testing::run_cli(dir, "why " + shell_quote(samples + ".race.pbtxt") + " 1 2");
  EXPECT_EQ(race.code, 1) << race.out << race.err;
  EXPECT_THAT(race.out, HasSubstr("#1 does not happen-before #2"));
  const CliRun resumed = testing::run_cli(dir, "why " + shell_quote(samples + ".race.pbtxt") + " 1 3");
  EXPECT_EQ(resumed.code, 0) << resumed.out << resumed.err;
  const CliRun clean = testing::run_cli(dir, "why " + shell_quote(samples + ".clean.pbtxt") + " 1 2");
  EXPECT_EQ(clean.code, 0) << clean.out << clean.err;
  EXPECT_THAT(clean.out, HasSubstr("grid-dependency wait (PDL)"));
}

}  // namespace
}  // namespace racetrack
