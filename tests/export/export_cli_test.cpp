// `racetrack export IN OUT [--format perfetto|chrome]` run as a subprocess:
// the format chosen by flag or extension, exit 0 on success and 2 on bad
// input or usage, errors as "FILE: offset N: message".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "export_scenario.h"
#include "perfetto_trace.pb.h"
#include "run_cli.h"
#include "test_support.h"

namespace racetrack {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

using testing::CliRun;
using testing::shell_quote;

class ExportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    trace_ = testing::export_scenario().trace;
    in_ = dir_.path("in.rtrace");
    ends_ = testing::write_chunked(trace_, in_, /*compress=*/true, 4);
  }

  CliRun racetrack(const std::string& args) { return testing::run_cli(dir_, args); }

  static bool is_chrome_json(const std::string& bytes) {
    return nlohmann::json::accept(bytes) && nlohmann::json::parse(bytes).contains("traceEvents");
  }

  static bool is_perfetto(const std::string& bytes) {
    perfetto::Trace trace;
    return !bytes.empty() && bytes[0] == 0x0A && trace.ParseFromString(bytes) && trace.packet_size() > 0;
  }

  testing::TempDir dir_;
  v1::Chunk trace_;
  std::string in_;
  std::vector<uint64_t> ends_;
};

TEST_F(ExportCli, TheExtensionPicksTheFormat) {
  const std::string json = dir_.path("out.json"), proto = dir_.path("out.pftrace");
  const CliRun to_json = racetrack("export " + shell_quote(in_) + " " + shell_quote(json));
  ASSERT_EQ(to_json.code, 0) << to_json.err;
  EXPECT_TRUE(is_chrome_json(testing::read_bytes(json)));
  EXPECT_THAT(to_json.out, StartsWith(json + ": " + std::to_string(trace_.ops_size()) + " slices, 3 flows"));
  EXPECT_THAT(to_json.err, IsEmpty());

  const CliRun to_proto = racetrack("export " + shell_quote(in_) + " " + shell_quote(proto));
  ASSERT_EQ(to_proto.code, 0) << to_proto.err;
  EXPECT_TRUE(is_perfetto(testing::read_bytes(proto)));
  EXPECT_THAT(to_proto.err, IsEmpty());
}

TEST_F(ExportCli, TheFlagOverridesTheExtension) {
  const std::string a = dir_.path("a.json"), b = dir_.path("b.trace");
  ASSERT_EQ(racetrack("export " + shell_quote(in_) + " " + shell_quote(a) + " --format perfetto").code, 0);
  EXPECT_TRUE(is_perfetto(testing::read_bytes(a)));
  ASSERT_EQ(racetrack("export --format chrome " + shell_quote(in_) + " " + shell_quote(b)).code, 0);
  EXPECT_TRUE(is_chrome_json(testing::read_bytes(b)));
}

TEST_F(ExportCli, UsageErrorsExitTwo) {
  EXPECT_EQ(racetrack("export " + shell_quote(in_)).code, 2) << "OUT is required";
  const CliRun bad =
      racetrack("export " + shell_quote(in_) + " " + shell_quote(dir_.path("x.json")) + " --format svg");
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("svg"));
}

TEST_F(ExportCli, ATruncatedInputExitsTwoWithItsOffset) {
  const std::string cut = dir_.path("cut.rtrace");
  testing::write_bytes(cut, testing::read_bytes(in_).substr(0, ends_[2] + 20));
  const std::string out = dir_.path("cut.json");
  const CliRun run = racetrack("export " + shell_quote(cut) + " " + shell_quote(out));
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, StartsWith(cut + ": offset " + std::to_string(ends_[2]) + ": "));
  EXPECT_THAT(run.out, IsEmpty());
  EXPECT_FALSE(testing::fs::exists(out)) << "no half-written output";
}

TEST_F(ExportCli, AnUnwritableOutputExitsTwo) {
  const std::string out = dir_.path("no/such/dir/out.pftrace");
  const CliRun run = racetrack("export " + shell_quote(in_) + " " + shell_quote(out));
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, StartsWith(out + ": cannot write: directory "));
}

}  // namespace
}  // namespace racetrack
