// The ranks of a distributed run from the command line (docs/distributed.md):
// synth --ranks, check of several traces (paths, a directory, a glob),
// export merging ranks, and the bad inputs of each.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

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

class Ranks : public ::testing::Test {
 protected:
  void SetUp() override {
    run_dir_ = dir_.path("run");
    std::filesystem::create_directory(run_dir_);
    const CliRun synth = racetrack("synth -o " + shell_quote(run_dir_ + "/rank-%r.rtrace") +
                                   " --ranks 3 --ops 12000 --inject C12_bucket:2,C11_stash");
    ASSERT_EQ(synth.code, 0) << synth.err;
  }
  CliRun racetrack(const std::string& args) { return testing::run_cli(dir_, args); }
  std::string rank(int r) const { return run_dir_ + "/rank-" + std::to_string(r) + ".rtrace"; }
  TempDir dir_;
  std::string run_dir_;
};

TEST_F(Ranks, SynthWritesOneTracePerRankWithItsRankHostAndShareOfTheInjections) {
  for (int r = 0; r < 3; ++r) {
    auto trace = load_trace(rank(r));
    ASSERT_TRUE(trace.ok()) << trace.error().describe();
    EXPECT_EQ(trace->header().rank(), r);
    EXPECT_EQ(trace->header().host(), "synth-node0");
    std::ifstream truth(rank(r) + ".truth.json");
    const std::string text((std::istreambuf_iterator<char>(truth)), std::istreambuf_iterator<char>());
    // Dealt one at a time in shape order: C12_bucket to ranks 0 and 1, C11_stash to rank 2.
    EXPECT_THAT(text, HasSubstr(r < 2 ? "C12_bucket" : "C11_stash")) << "rank " << r;
  }
  const CliRun no_pattern = racetrack("synth -o " + shell_quote(dir_.path("x.rtrace")) + " --ranks 2");
  EXPECT_EQ(no_pattern.code, 2);
  EXPECT_THAT(no_pattern.err, HasSubstr("put %r (the rank) in --output"));
  EXPECT_FALSE(std::filesystem::exists(dir_.path("x.rtrace")));
}

TEST_F(Ranks, CheckOfADirectoryAGlobOrPathsGivesOneReport) {
  for (const std::string& inputs :
       {shell_quote(run_dir_), shell_quote(run_dir_ + "/rank-*.rtrace"),
        shell_quote(rank(0)) + " " + shell_quote(rank(1)) + " " + shell_quote(rank(2))}) {
    SCOPED_TRACE(inputs);
    const CliRun run = racetrack("check " + inputs);
    EXPECT_EQ(run.code, 1) << run.err;
    EXPECT_THAT(run.out, HasSubstr("racetrack check: 3 traces, 3 checked"));
    EXPECT_THAT(run.out, HasSubstr("rank 2 on synth-node0"));
    EXPECT_THAT(run.out, HasSubstr("communication, on 2 of 3 trace(s) (rank 0, 1)"));
    EXPECT_THAT(run.err, HasSubstr("3 traces on"));
  }
}

TEST_F(Ranks, AnUnreadableRankIsReportedAndTheOthersChecked) {
  // Rank 0's trace cut in the middle, and a file that is no trace at all.
  const auto size = std::filesystem::file_size(rank(0));
  std::filesystem::copy_file(rank(0), run_dir_ + "/rank-3.rtrace");
  std::filesystem::resize_file(run_dir_ + "/rank-3.rtrace", size / 2);
  std::ofstream(run_dir_ + "/rank-4.rtrace") << "not a trace";
  const CliRun run = racetrack("check " + shell_quote(run_dir_));
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.out, HasSubstr("5 traces, 3 checked, 2 could not be checked"));
  EXPECT_THAT(run.out, HasSubstr("rank-3.rtrace: NOT CHECKED: "));
  EXPECT_THAT(run.out, HasSubstr("rank-4.rtrace: NOT CHECKED: "));
  EXPECT_THAT(run.out, HasSubstr("rank 2 on synth-node0"));
  // None readable: bad input.
  const std::string bad = dir_.path("bad");
  std::filesystem::create_directory(bad);
  std::ofstream(bad + "/a.rtrace") << "x";
  std::ofstream(bad + "/b.rtrace") << "y";
  const CliRun none = racetrack("check " + shell_quote(bad));
  EXPECT_EQ(none.code, 2);
  EXPECT_THAT(none.err, HasSubstr("none of the 2 traces could be checked"));
}

TEST_F(Ranks, BadInputsOfSeveralTracesExitTwoAndWriteNothing) {
  const CliRun empty = racetrack("check " + shell_quote(dir_.path("run/rank-9*.rtrace")));
  EXPECT_EQ(empty.code, 2);
  EXPECT_THAT(empty.err, HasSubstr("no file matches this pattern"));
  std::filesystem::create_directory(dir_.path("empty"));
  const CliRun no_traces = racetrack("check " + shell_quote(dir_.path("empty")));
  EXPECT_EQ(no_traces.code, 2);
  EXPECT_THAT(no_traces.err, HasSubstr("no trace (*.rtrace) in this directory"));
  const CliRun fixed =
      racetrack("check " + shell_quote(run_dir_) + " --emit-fixed " + shell_quote(dir_.path("fixed.rtrace")));
  EXPECT_EQ(fixed.code, 2);
  EXPECT_THAT(fixed.err, HasSubstr("--emit-fixed takes one trace, not 3"));
  EXPECT_FALSE(std::filesystem::exists(dir_.path("fixed.rtrace")));
}

TEST_F(Ranks, ExportMergesRanksIntoOnePerfettoTraceWithAlignedClocks) {
  const std::string out = dir_.path("run.pftrace");
  const CliRun run = racetrack("export " + shell_quote(run_dir_) + " " + shell_quote(out));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("3 ranks"));
  EXPECT_THAT(run.out, HasSubstr("clocks aligned to the earliest header time origin"));
  EXPECT_THAT(run.out, HasSubstr("rank 1 (" + rank(1) + "): +0 ns"));
  ASSERT_TRUE(std::filesystem::exists(out));
  // Each rank's export alone, summed, is the merge's size in slices.
  uint64_t slices = 0;
  for (int r = 0; r < 3; ++r) {
    const CliRun one =
        racetrack("export " + shell_quote(rank(r)) + " " + shell_quote(dir_.path("one.pftrace")));
    ASSERT_EQ(one.code, 0) << one.err;
    slices += std::stoull(one.out.substr(one.out.find(": ") + 2));
  }
  EXPECT_THAT(run.out, HasSubstr(std::to_string(slices) + " slices"));
  const CliRun chrome =
      racetrack("export " + shell_quote(run_dir_) + " " + shell_quote(dir_.path("run.json")));
  EXPECT_EQ(chrome.code, 2);
  EXPECT_THAT(chrome.err, HasSubstr("writes Perfetto only"));
  EXPECT_FALSE(std::filesystem::exists(dir_.path("run.json")));
  EXPECT_THAT(racetrack("export " + shell_quote(run_dir_) + " " + shell_quote(dir_.path("w.pftrace")) +
                        " --max-ops 10")
                  .err,
              HasSubstr("take one trace"));
}

}  // namespace
}  // namespace racetrack
