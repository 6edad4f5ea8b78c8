// `racetrack capture` as a user runs it, with stand-in commands (no GPU
// here): the environment it gives the program, the exit status it keeps,
// and what it reports about the traces the program's processes wrote.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "run_cli.h"

namespace racetrack::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string kSample = std::string(RACETRACK_SAMPLES_DIR) + "/c1_reload_not_waited.race.pbtxt";

std::string capture(const TempDir& dir, const std::string& options, const std::string& script) {
  return "capture -o " + shell_quote(dir.path("out.rtrace")) + " " + options + " -- sh -c " +
         shell_quote(script);
}

TEST(CaptureLauncher, KeepsTheExitStatusAndSaysWhenNoTraceWasWritten) {
  TempDir dir;
  const CliRun run = run_cli(dir, capture(dir, "", "exit 3"));
  EXPECT_EQ(run.code, 3);
  EXPECT_THAT(run.err, HasSubstr("no trace was written"));
}

TEST(CaptureLauncher, ASignalledCommandExitsLikeAShellReportsIt) {
  TempDir dir;
  EXPECT_EQ(run_cli(dir, capture(dir, "", "kill -TERM $$")).code, 128 + 15);
}

TEST(CaptureLauncher, GivesTheProgramTheInjectionEnvironment) {
  TempDir dir;
  const CliRun run = run_cli(
      dir, capture(dir, "", "echo \"$CUDA_INJECTION64_PATH|$NVTX_INJECTION64_PATH|$RACETRACK_CAPTURE_OUTPUT\""));
  ASSERT_EQ(run.code, 0) << run.err;
  const auto fields = split_lines(run.out);
  ASSERT_EQ(fields.size(), 1u);
  const std::string library = fields[0].substr(0, fields[0].find('|'));
  EXPECT_TRUE(std::filesystem::exists(library)) << library;
  EXPECT_THAT(library, HasSubstr("libracetrack_capture.so"));
  EXPECT_EQ(fields[0], library + "|" + library + "|" + dir.path("out.rtrace"));
}

TEST(CaptureLauncher, NoNvtxLeavesNvtxAlone) {
  TempDir dir;
  const CliRun run =
      run_cli(dir, "capture -o " + shell_quote(dir.path("o.rtrace")) +
                       " --no-nvtx -- env -u NVTX_INJECTION64_PATH sh -c " +
                       shell_quote("echo \"[$NVTX_INJECTION64_PATH]$RACETRACK_CAPTURE_NVTX\""));
  EXPECT_EQ(run.out, "[]0\n");
}

TEST(CaptureLauncher, CodeOptionsReachTheProgram) {
  TempDir dir;
  const std::string show = "echo \"[$RACETRACK_CAPTURE_CODE|$RACETRACK_CAPTURE_MAX_MODULE_BYTES]\"";
  EXPECT_EQ(run_cli(dir, capture(dir, "", show)).out, "[|]\n");  // the library's defaults
  EXPECT_EQ(run_cli(dir, capture(dir, "--no-code --max-module-bytes 64K", show)).out, "[0|65536]\n");
  EXPECT_EQ(run_cli(dir, capture(dir, "--max-module-bytes 4096", show)).out, "[|4096]\n");
  for (const char* bad : {"12Q", "-1", "2000G", "M"}) {
    const CliRun run = run_cli(dir, capture(dir, std::string("--max-module-bytes ") + bad, "true"));
    EXPECT_EQ(run.code, 2) << bad;
    EXPECT_THAT(run.err, HasSubstr("--max-module-bytes '" + std::string(bad) + "'")) << bad;
  }
}

TEST(CaptureLauncher, ValuesNeedTorchAndReachTheProgramAsAnAbsolutePath) {
  TempDir dir;
  const std::string show = "echo \"[$RACETRACK_TORCH_VALUES]\"";
  const CliRun without = run_cli(dir, capture(dir, "--values v.jsonl", show));
  EXPECT_EQ(without.code, 2);
  EXPECT_THAT(without.err, HasSubstr("--values needs --torch"));
  const CliRun own =
      run_cli(dir, capture(dir, "--torch --values " + shell_quote(dir.path("out.rtrace")), show));
  EXPECT_EQ(own.code, 2);
  EXPECT_THAT(own.err, HasSubstr("is the trace's own path"));
  const CliRun run = run_cli(dir, "capture -o " + shell_quote(dir.path("out.rtrace")) +
                                      " --torch --values v-%p.jsonl -- sh -c " + shell_quote(show));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, "[" + (std::filesystem::current_path() / "v-%p.jsonl").string() + "]\n");
}

// A program that writes a values record where --values says and a trace
// (the stand-in CUDA program): the record ends up inside the trace.
TEST(CaptureLauncher, ValuesGoIntoTheTraceTheProgramWrote) {
  TempDir dir;
  const std::string record =
      R"({"racetrack_values": 1, "torch": "x"})"
      "\n"
      R"({"seq": 0, "phase": "forward", "module": "m", "op": "aten::mul", "n": 0, "t": 5, "thread": 1,)"
      R"( "in": [], "out": [{"hash": "ab", "dtype": "float32", "numel": 1, "sum": 1.0, "absmax": 1.0, "nan": 0,)"
      R"( "inf": 0}]})"
      "\n";
  write_bytes(dir.path("made.jsonl"), record);
  const std::string program = "cp " + shell_quote(dir.path("made.jsonl")) + " \"$RACETRACK_TORCH_VALUES\" && " +
                              shell_quote(RACETRACK_SHIM_PROGRAM) + " offload";
  const CliRun run = run_cli(dir, "capture -o " + shell_quote(dir.path("out.rtrace")) + " --torch --values " +
                                      shell_quote(dir.path("v.jsonl")) + " -- env LD_LIBRARY_PATH=" +
                                      shell_quote(RACETRACK_SHIM_FAKES_DIR) + " sh -c " + shell_quote(program));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr("added the values of 1 operator(s)"));
  const CliRun diff = run_cli(dir, "diff --format json " + shell_quote(dir.path("out.rtrace")) + " " +
                                       shell_quote(dir.path("v.jsonl")));
  EXPECT_EQ(diff.code, 0) << diff.err;
  EXPECT_THAT(diff.out, HasSubstr("\"compared\": 1"));
  EXPECT_EQ(run_cli(dir, "validate " + shell_quote(dir.path("out.rtrace"))).code, 0);
  const CliRun info = run_cli(dir, "info " + shell_quote(dir.path("out.rtrace")));
  EXPECT_THAT(info.out, Not(HasSubstr("\n0 ops")));  // the program's ops are all still there
}

TEST(CaptureLauncher, TorchPutsThePythonPackageFirst) {
  TempDir dir;
  const CliRun run = run_cli(
      dir, capture(dir, "--torch-stacks",
                   "echo \"$PYTHONPATH|$RACETRACK_TORCH|$RACETRACK_TORCH_STACKS\"; "
                   "test -f \"${PYTHONPATH%%:*}/racetrack_torch/__init__.py\" && echo package"));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("|1|1\n"));
  EXPECT_THAT(run.out, HasSubstr("package"));
}

TEST(CaptureLauncher, ReportsEachTraceWithItsOpCounts) {
  TempDir dir;
  ASSERT_EQ(run_cli(dir, "convert " + shell_quote(kSample) + " " + shell_quote(dir.path("s.rtrace"))).code, 0);
  // What the injected library does at exit: the trace, then its path in the index.
  const std::string script = "cp " + shell_quote(dir.path("s.rtrace")) +
                             " \"$RACETRACK_CAPTURE_OUTPUT\" && echo \"$RACETRACK_CAPTURE_OUTPUT\" >> "
                             "\"$RACETRACK_CAPTURE_INDEX\"";
  const CliRun run = run_cli(dir, capture(dir, "", script));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.err, HasSubstr(dir.path("out.rtrace") + ": "));
  EXPECT_THAT(run.err, HasSubstr(" kernel"));
  EXPECT_THAT(run.err, HasSubstr(" memcpy"));
  EXPECT_THAT(run.err, Not(HasSubstr("no trace was written")));
}

TEST(CaptureLauncher, ATruncatedTraceIsReportedAsReadableUpToTheError) {
  TempDir dir;
  ASSERT_EQ(run_cli(dir, "convert " + shell_quote(kSample) + " " + shell_quote(dir.path("s.rtrace"))).code, 0);
  const std::string script = "head -c 100 " + shell_quote(dir.path("s.rtrace")) +
                             " > \"$RACETRACK_CAPTURE_OUTPUT\" && echo \"$RACETRACK_CAPTURE_OUTPUT\" >> "
                             "\"$RACETRACK_CAPTURE_INDEX\"; kill -KILL $$";
  const CliRun run = run_cli(dir, capture(dir, "", script));
  EXPECT_EQ(run.code, 128 + 9);
  EXPECT_THAT(run.err, HasSubstr("readable up to the error"));
}

TEST(CaptureLauncher, BadSetupIsBadInput) {
  TempDir dir;
  const CliRun missing = run_cli(dir, "capture --library /no/such/lib.so -- true");
  EXPECT_EQ(missing.code, 2);
  EXPECT_THAT(missing.err, HasSubstr("/no/such/lib.so"));
  const CliRun no_command = run_cli(dir, "capture -o x.rtrace");
  EXPECT_EQ(no_command.code, 2);
  const CliRun unrunnable = run_cli(dir, "capture -o " + shell_quote(dir.path("o.rtrace")) + " -- /no/such/program");
  EXPECT_EQ(unrunnable.code, 127);
  EXPECT_THAT(unrunnable.err, HasSubstr("cannot run /no/such/program"));
}

}  // namespace
}  // namespace racetrack::testing
