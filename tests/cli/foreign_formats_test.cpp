// Other tools' traces handed to racetrack: every command says what the file
// is and how to capture a racetrack trace instead, exit 2, rather than a
// protobuf parse error; racetrack's own encodings are never mistaken for one.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "run_cli.h"
#include "test_support.h"

namespace racetrack {
namespace {

using ::testing::AllOf;
using testing::CliRun;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::shell_quote;
using testing::TempDir;

const std::string kSample = std::string(RACETRACK_SAMPLES_DIR) + "/c1_reload_not_waited.race.pbtxt";
constexpr const char* kAdvice =
    "capture a racetrack trace instead: racetrack capture --torch -- python train.py";

class ForeignFormats : public ::testing::Test {
 protected:
  CliRun racetrack(const std::string& args) { return testing::run_cli(dir_, args); }

  // Every command that reads a trace, run on `path`: each must name what
  // the file is (`what`) and give the capture advice.
  void expect_recognised(const std::string& path, const std::string& what) {
    const std::string q = shell_quote(path);
    const std::string out = shell_quote(dir_.path("out.rtrace"));
    std::vector<std::string> commands = {"check " + q,
                                         "info " + q,
                                         "dump " + q,
                                         "validate " + q,
                                         "sim " + q,
                                         "replay " + q,
                                         "why " + q + " 1 2",
                                         "export " + q + " " + shell_quote(dir_.path("out.pftrace")),
                                         "convert " + q + " " + out,
                                         "modes " + q};
#ifdef RACETRACK_HAS_VIEWER
    commands.push_back("view " + q + " --screenshot " + shell_quote(dir_.path("out.png")));
#endif
    for (const std::string& command : commands) {
      const CliRun run = racetrack(command);
      EXPECT_EQ(run.code, 2) << command;
      EXPECT_THAT(run.err, AllOf(HasSubstr(path + ": this is " + what), HasSubstr(kAdvice))) << command;
      EXPECT_THAT(run.err, AllOf(Not(HasSubstr("JSON:")), Not(HasSubstr("wrong magic")),
                                 Not(HasSubstr("text format")), Not(HasSubstr("format version"))))
          << command;
    }
  }

  std::string write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_.path(name);
    testing::write_bytes(path, bytes);
    return path;
  }

  TempDir dir_;
};

TEST_F(ForeignFormats, PyTorchProfilerTrace) {
  // Kineto's layout: schema and devices first, the events after them.
  const std::string path = write("step.pt.trace.json",
                                 "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0}],\n"
                                 "  \"traceEvents\": [{\"ph\": \"X\", \"name\": \"aten::mm\"}]\n}\n");
  expect_recognised(path, "a PyTorch profiler trace");
}

TEST_F(ForeignFormats, ChromeTraceJsonFromExport) {
  const std::string path = dir_.path("exported.json");
  ASSERT_EQ(racetrack("export " + shell_quote(kSample) + " " + shell_quote(path)).code, 0);
  expect_recognised(path, "a Chrome trace JSON");
  expect_recognised(write("events.json", "[{\"name\": \"k\", \"ph\": \"X\", \"ts\": 1}]"), "a Chrome trace");
}

TEST_F(ForeignFormats, PerfettoTraceByExtensionAndByContent) {
  const std::string path = dir_.path("exported.pftrace");
  ASSERT_EQ(racetrack("export " + shell_quote(kSample) + " " + shell_quote(path)).code, 0);
  expect_recognised(path, "a Perfetto trace");
  const std::string unnamed = write("trace.bin", testing::read_bytes(path));
  expect_recognised(unnamed, "a Perfetto trace");
}

TEST_F(ForeignFormats, NsightSystemsReportsAndExports) {
  expect_recognised(write("profile.nsys-rep", std::string("\x00\x01nsys", 6)), "an Nsight Systems report");
  expect_recognised(write("old.qdrep", "QDREP"), "an Nsight Systems report");
  std::string sqlite("SQLite format 3\0", 16);
  sqlite += std::string(100, '\0') + "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER)";
  expect_recognised(write("profile.sqlite", sqlite), "an Nsight Systems SQLite export");
}

TEST_F(ForeignFormats, NsightComputeReport) {
  expect_recognised(write("kernels.ncu-rep", std::string("NVIDIA\x00\x01", 8)), "an Nsight Compute report");
}

TEST_F(ForeignFormats, CompressedFiles) {
  expect_recognised(write("step.pt.trace.json.gz", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8)),
                    "a gzip-compressed file");
}

TEST_F(ForeignFormats, RacetrackTracesAreNeverMistaken) {
  for (const char* name : {"t.json", "t.pbtxt", "t.rtrace"}) {
    const std::string path = dir_.path(name);
    ASSERT_EQ(racetrack("convert " + shell_quote(kSample) + " " + shell_quote(path)).code, 0) << name;
    const CliRun run = racetrack("validate " + shell_quote(path));
    EXPECT_EQ(run.code, 0) << name << ": " << run.err;
  }
  // A broken trace of ours keeps its own error.
  const CliRun broken =
      racetrack("validate " + shell_quote(write("broken.json", "{\"ops\": [{\"seq\": \"x\"}]}")));
  EXPECT_EQ(broken.code, 2);
  EXPECT_THAT(broken.err, AllOf(HasSubstr("JSON:"), Not(HasSubstr("this is"))));
  const CliRun junk = racetrack("validate " + shell_quote(write("junk.rtrace", "not a trace at all")));
  EXPECT_EQ(junk.code, 2);
  EXPECT_THAT(junk.err, AllOf(HasSubstr("wrong magic"), Not(HasSubstr("this is"))));
}

}  // namespace
}  // namespace racetrack
