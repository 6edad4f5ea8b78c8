// `racetrack export IN OUT ...` run as a subprocess: the format chosen by
// flag or extension; the hazards of `racetrack check`, numbered as it
// numbers them; the window flags; big outputs announced before they are
// written; exit 0 on success and 2 on bad input or usage, errors as
// "FILE: offset N: message".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "export_scenario.h"
#include "perfetto_trace.pb.h"
#include "racetrack/traces/export.h"
#include "run_cli.h"
#include "test_support.h"

namespace racetrack {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::MatchesRegex;
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

// Hazard slices of a Perfetto export, by number: (name, annotations).
std::map<uint64_t, std::pair<std::string, std::map<std::string, std::string>>> hazard_slices(
    const std::string& bytes) {
  perfetto::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(bytes));
  std::set<uint64_t> hazard_tracks;
  for (const perfetto::TracePacket& p : trace.packet())
    if (p.has_track_descriptor() && p.track_descriptor().name().rfind("Hazards", 0) == 0)
      hazard_tracks.insert(p.track_descriptor().uuid());
  std::map<uint64_t, std::pair<std::string, std::map<std::string, std::string>>> out;
  for (const perfetto::TracePacket& p : trace.packet()) {
    const perfetto::TrackEvent& e = p.track_event();
    if (!p.has_track_event() || !hazard_tracks.count(e.track_uuid()) ||
        e.type() != perfetto::TrackEvent::TYPE_SLICE_BEGIN)
      continue;
    std::map<std::string, std::string> args;
    uint64_t number = 0;
    for (const perfetto::DebugAnnotation& a : e.debug_annotations()) {
      if (a.name() == "hazard") number = a.uint_value();
      args[a.name()] = a.has_string_value() ? a.string_value() : std::to_string(a.uint_value());
    }
    EXPECT_FALSE(out.count(number)) << "two slices for hazard " << number;
    out[number] = {e.name(), args};
  }
  return out;
}

// `racetrack check`'s text report: the line of each [N] and its fix line.
std::map<uint64_t, std::pair<std::string, std::string>> check_groups(const std::string& report) {
  std::map<uint64_t, std::pair<std::string, std::string>> out;
  uint64_t current = 0;
  for (const std::string& line : testing::split_lines(report)) {
    if (line.rfind("[", 0) == 0) {
      current = std::stoull(line.substr(1));
      out[current].first = line;
    } else if (current && line.rfind("    fix:    ", 0) == 0) {
      out[current].second = line.substr(12);
    }
  }
  return out;
}

class ExportHazardsCli : public ExportCli {
 protected:
  void SetUp() override {
    trace_path_ = dir_.path("hazards.rtrace");
    const CliRun synth =
        racetrack("synth -o " + shell_quote(trace_path_) + " --seed 3 --ops 20000 --inject all");
    ASSERT_EQ(synth.code, 0) << synth.err;
  }
  std::string trace_path_;
};

TEST_F(ExportHazardsCli, EachShownGroupIsAHazardSliceNumberedAsCheckNumbersIt) {
  // Every shown group in full (synth --inject all shows more than the default 20).
  const CliRun check = racetrack("check --max 1000 " + shell_quote(trace_path_));
  ASSERT_EQ(check.code, 1) << "the synth trace has hazards";
  const auto groups = check_groups(check.out);
  ASSERT_GE(groups.size(), 3u);
  const std::string out = dir_.path("hazards.pftrace");
  const CliRun run = racetrack("export " + shell_quote(trace_path_) + " " + shell_quote(out));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr(" " + std::to_string(groups.size()) + " hazard(s)"));
  const auto slices = hazard_slices(testing::read_bytes(out));
  ASSERT_EQ(slices.size(), groups.size());
  for (const auto& [number, group] : groups) {
    SCOPED_TRACE(group.first);
    ASSERT_TRUE(slices.count(number));
    const auto& [name, args] = slices.at(number);
    EXPECT_THAT(group.first, StartsWith(name + " (")) << "the slice is named as check's line starts";
    EXPECT_EQ(args.at("fix"), group.second);
    EXPECT_EQ(args.at("hazard"), std::to_string(number));
    for (const char* key : {"kind", "class", "confidence", "signature", "explanation", "first", "second"})
      EXPECT_TRUE(args.count(key)) << key;
  }

  const CliRun bare = racetrack("export --no-hazards " + shell_quote(trace_path_) + " " + shell_quote(out));
  ASSERT_EQ(bare.code, 0) << bare.err;
  EXPECT_TRUE(hazard_slices(testing::read_bytes(out)).empty());
  EXPECT_THAT(bare.out, HasSubstr(" 0 hazard(s)"));
}

TEST_F(ExportHazardsCli, TheHazardBoundAndMinConfidencePassThrough) {
  const std::string out = dir_.path("bounded.json");
  const CliRun few = racetrack("export " + shell_quote(trace_path_) + " " + shell_quote(out) +
                               " --all-hazards --max-hazards 2");
  ASSERT_EQ(few.code, 0) << few.err;
  EXPECT_THAT(few.out, HasSubstr(" 2 hazard(s)"));
  const CliRun bad =
      racetrack("export " + shell_quote(trace_path_) + " " + shell_quote(out) + " --min-confidence sure");
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--min-confidence"));
}

TEST_F(ExportHazardsCli, AWindowBoundsTheOpsAndBigOutputsAreAnnouncedFirst) {
  const std::string out = dir_.path("window.pftrace");
  const CliRun window = racetrack("export --no-hazards --from 100 --to 199 " + shell_quote(trace_path_) +
                                  " " + shell_quote(out));
  ASSERT_EQ(window.code, 0) << window.err;
  EXPECT_THAT(window.out, StartsWith(out + ": 100 slices, "));
  const CliRun few = racetrack("export --no-hazards --from 100 --max-ops 7 " + shell_quote(trace_path_) +
                               " " + shell_quote(out));
  EXPECT_THAT(few.out, StartsWith(out + ": 7 slices, "));
  const CliRun none =
      racetrack("export --from 999999999 " + shell_quote(trace_path_) + " " + shell_quote(out));
  EXPECT_EQ(none.code, 2);
  EXPECT_THAT(none.err, StartsWith(trace_path_ + ": no op from seq 999999999 to export"));

  // About 16 MiB of JSON: said on stderr, before anything is written.
  const std::string big_trace = dir_.path("big.rtrace");
  ASSERT_EQ(racetrack("synth -o " + shell_quote(big_trace) + " --ops 50000").code, 0);
  const std::string big = dir_.path("big.json");
  const CliRun loud =
      racetrack("export --no-hazards --max-ops 46000 " + shell_quote(big_trace) + " " + shell_quote(big));
  ASSERT_EQ(loud.code, 0) << loud.err;
  EXPECT_THAT(loud.err,
              MatchesRegex("export: .*big.json will be about 1[0-9]\\.[0-9] MiB \\(46000 ops of [0-9]+, "
                           "seq 1\\.\\.46000\\)\n"));
  const double per_op = static_cast<double>(testing::fs::file_size(big)) / 46000;
  EXPECT_NEAR(per_op, static_cast<double>(kChromeBytesPerOp), 60.0)
      << "the estimate is within 60 bytes an op";
}

}  // namespace
}  // namespace racetrack
