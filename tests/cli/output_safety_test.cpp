// No command may destroy one of its inputs or report a success that did not
// happen: outputs onto inputs (also through links) are refused before any
// work, outputs appear whole or not at all, empty and invalid traces are
// errors (exit 2) rather than silent passes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "racetrack/traces/trace_io.h"
#include "run_cli.h"
#include "test_support.h"

namespace racetrack {
namespace {

using testing::CliRun;
using ::testing::HasSubstr;
using testing::shell_quote;
using testing::TempDir;

namespace fs = std::filesystem;

class OutputSafety : public ::testing::Test {
 protected:
  void SetUp() override {
    // Larger than one stdio buffer, with hazards (so check and sim write).
    trace_ = dir_.path("t.rtrace");
    const CliRun made = racetrack("synth -o " + q(trace_) + " --ops 20000 --inject C1 --seed 3");
    ASSERT_EQ(made.code, 0) << made.err;
    ASSERT_GT(fs::file_size(trace_), 64u << 10);
    bytes_ = testing::read_bytes(trace_);
  }

  CliRun racetrack(const std::string& args) { return testing::run_cli(dir_, args); }
  static std::string q(const std::string& s) { return shell_quote(s); }
  void expect_refused(const CliRun& run, const std::string& input) {
    EXPECT_EQ(run.code, 2) << run.out << run.err;
    EXPECT_THAT(run.err, HasSubstr("refusing to overwrite an input"));
    EXPECT_EQ(testing::read_bytes(input), bytes_) << "the input was changed";
  }

  TempDir dir_;
  std::string trace_, bytes_;
};

TEST_F(OutputSafety, EveryCommandRefusesToWriteOverItsInput) {
  const std::string t = q(trace_);
  expect_refused(racetrack("convert " + t + " " + t), trace_);
  expect_refused(racetrack("export " + t + " " + t), trace_);
  expect_refused(racetrack("sim " + t + " -o " + t), trace_);
  expect_refused(racetrack("replay " + t + " -o " + t), trace_);
  expect_refused(racetrack("check " + t + " --emit-fixed " + t), trace_);
  // The same file by another spelling.
  const std::string dotted = (fs::path(trace_).parent_path() / "." / fs::path(trace_).filename()).string();
  expect_refused(racetrack("convert " + t + " " + q(dotted)), trace_);
}

TEST_F(OutputSafety, LinksToTheInputAreTheInput) {
  const std::string symlink = dir_.path("link.rtrace"), hardlink = dir_.path("hard.rtrace");
  fs::create_symlink(trace_, symlink);
  fs::create_hard_link(trace_, hardlink);
  expect_refused(racetrack("convert " + q(trace_) + " " + q(symlink)), trace_);
  expect_refused(racetrack("convert " + q(trace_) + " " + q(hardlink)), trace_);
  expect_refused(racetrack("export " + q(symlink) + " " + q(hardlink)), trace_);
}

TEST_F(OutputSafety, TextAndJsonOutputsOntoTheirInputAreRefused) {
  const std::string text = dir_.path("x.pbtxt");
  ASSERT_EQ(racetrack("convert " + q(trace_) + " " + q(text)).code, 0);
  const std::string before = testing::read_bytes(text);
  const CliRun run = racetrack("export " + q(text) + " " + q(text));
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(testing::read_bytes(text), before);
}

TEST_F(OutputSafety, SynthRefusesATruthFileThatIsTheTrace) {
  const std::string out = dir_.path("s.rtrace");
  const CliRun run = racetrack("synth -o " + q(out) + " --truth " + q(out) + " --ops 2000");
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_THAT(run.err, HasSubstr("is the input"));
  EXPECT_FALSE(fs::exists(out)) << "checked before any work";
}

TEST_F(OutputSafety, SynthFailsBeforeWorkWhenTheTruthCannotBeWritten) {
  const std::string out = dir_.path("s.rtrace");
  const CliRun run = racetrack("synth -o " + q(out) + " --truth /nonexistent/t.json --ops 2000");
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("/nonexistent/t.json: cannot write: directory /nonexistent does not exist"));
  EXPECT_THAT(run.out, ::testing::Not(HasSubstr("listed in")));
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(OutputSafety, SynthHonoursTheOutputsExtension) {
  for (const char* name : {"s.pbtxt", "s.json"}) {
    const std::string out = dir_.path(name);
    const CliRun run = racetrack("synth -o " + q(out) + " --ops 2000");
    ASSERT_EQ(run.code, 0) << run.err;
    EXPECT_NE(testing::read_bytes(out).substr(0, 6), "RTRACE") << name << " was written as binary";
    EXPECT_EQ(encoding_for_read(out), encoding_for_write(out));
    auto loaded = load_trace(out);
    ASSERT_TRUE(loaded.ok()) << loaded.error().describe();
    EXPECT_GT(loaded->ops_size(), 1000);
    for (const auto& entry : fs::directory_iterator(dir_.root()))
      EXPECT_THAT(entry.path().filename().string(), ::testing::Not(HasSubstr(".racetrack-")))
          << "a temporary file was left behind";
  }
}

TEST_F(OutputSafety, AFailedWriteLeavesTheOldOutput) {
  // The output exists; the input turns out broken half-way: the old output stays.
  const std::string out = dir_.path("old.pftrace");
  testing::write_bytes(out, "old content");
  const std::string cut = dir_.path("cut.rtrace");
  testing::write_bytes(cut, bytes_.substr(0, bytes_.size() / 2));
  const CliRun run = racetrack("export " + q(cut) + " " + q(out));
  EXPECT_EQ(run.code, 2);
  EXPECT_EQ(testing::read_bytes(out), "old content");
}

TEST_F(OutputSafety, AKilledConvertLeavesTheOldOutputOrAWholeNewOne) {
  const std::string big = dir_.path("big.rtrace");
  ASSERT_EQ(racetrack("synth -o " + q(big) + " --ops 200000 --no-compress").code, 0);
  const std::string out = dir_.path("out.pbtxt");
  for (int trial = 0; trial < 6; ++trial) {
    testing::write_bytes(out, "old");
    const pid_t child = fork();
    if (child == 0) {
      execl(RACETRACK_CLI, RACETRACK_CLI, "convert", big.c_str(), out.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50 + 60 * trial));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    const std::string now = testing::read_bytes(out);
    if (now == "old") continue;
    auto loaded = load_trace(out);
    EXPECT_TRUE(loaded.ok()) << "trial " << trial << ": a torn output: " << loaded.error().describe();
  }
}

TEST_F(OutputSafety, AnOutputInAMissingDirectoryFailsBeforeTheWork) {
  const std::string out = dir_.path("missing/out.rtrace");
  for (const std::string& args : {"sim " + q(trace_) + " -o " + q(out), "replay " + q(trace_) + " -o " + q(out),
                                  "check " + q(trace_) + " --emit-fixed " + q(out)}) {
    const CliRun run = racetrack(args);
    EXPECT_EQ(run.code, 2) << args;
    EXPECT_THAT(run.err, HasSubstr("does not exist")) << args;
    EXPECT_TRUE(run.out.empty()) << args << ": the analysis ran anyway:\n" << run.out;
  }
}

class InputRules : public ::testing::Test {
 protected:
  CliRun racetrack(const std::string& args) { return testing::run_cli(dir_, args); }
  TempDir dir_;
};

TEST_F(InputRules, ATraceWithoutOpsIsAnErrorNotAPass) {
  v1::Chunk header_only;
  header_only.mutable_header()->set_format_version(kFormatVersion);
  header_only.add_strings("main");
  auto* thread = header_only.add_threads();
  thread->set_id(1);
  const std::string binary = dir_.path("empty.rtrace"), text = dir_.path("empty.pbtxt");
  ASSERT_TRUE(save_trace(header_only, binary).ok());
  testing::write_bytes(text, "");
  for (const std::string& file : {binary, text})
    for (const char* command : {"check", "sim", "replay", "export"}) {
      const std::string args = std::string(command) + " " + shell_quote(file) +
                               (std::string(command) == "export" ? " " + shell_quote(dir_.path("o.pftrace")) : "");
      const CliRun run = racetrack(args);
      EXPECT_EQ(run.code, 2) << args << "\n" << run.out;
      EXPECT_THAT(run.err, HasSubstr("has no ops")) << args;
    }
}

TEST_F(InputRules, WhatValidateRejectsNoCommandAnalyses) {
  v1::Chunk trace;
  trace.mutable_header()->set_format_version(kFormatVersion);
  trace.add_threads()->set_id(1);
  auto* s = trace.add_streams();
  s->set_id(1);
  auto* op = trace.add_ops();
  op->set_seq(1);
  op->set_thread(1);
  op->set_stream(1);
  op->mutable_memset()->set_dst(0x1000);
  op->mutable_memset()->set_bytes(64);
  auto* bad = trace.add_ops();
  bad->set_seq(2);
  bad->set_thread(1);
  bad->set_stream(7);  // undefined
  bad->mutable_memset()->set_dst(0x1000);
  bad->mutable_memset()->set_bytes(64);
  const std::string file = dir_.path("bad.rtrace");
  ASSERT_TRUE(save_trace(trace, file).ok());
  const std::string out = dir_.path("o.pbtxt");
  for (const std::string& args :
       {"check " + shell_quote(file), "sim " + shell_quote(file), "replay " + shell_quote(file),
        "why " + shell_quote(file) + " 1 2", "convert " + shell_quote(file) + " " + shell_quote(out),
        "export " + shell_quote(file) + " " + shell_quote(dir_.path("o.pftrace"))}) {
    const CliRun run = racetrack(args);
    EXPECT_EQ(run.code, 2) << args << "\n" << run.out;
    EXPECT_THAT(run.err, HasSubstr("stream 7")) << args;
    EXPECT_THAT(run.err, HasSubstr("racetrack validate")) << args;
  }
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace racetrack
