// `racetrack replay` as a user runs it: exit 1 when a hazard manifests, 0
// on a fixed trace, 2 on bad flags, a missing file or --backend cuda on a
// machine (or build) that cannot replay on a GPU; the text and JSON reports
// and -o.
#include <nlohmann/json.hpp>

#include "racetrack/traces/validate.h"
#include "replay_test_support.h"
#include "run_cli.h"

namespace racetrack::replay_test {
namespace {

using testing::CliRun;
using testing::run_cli;
using testing::shell_quote;
using testing::TempDir;

const std::string kRace = sim_test::kSamples + "/c1_reload_not_waited.race.pbtxt";
const std::string kClean = sim_test::kSamples + "/c1_reload_not_waited.clean.pbtxt";
const std::string kFast = " --timing fast --stress-ns 50000000 ";

TEST(ReplayCli, AManifestedHazardExitsOne) {
  TempDir dir;
  const CliRun r = run_cli(dir, "replay --stress --repeat 2" + kFast + shell_quote(kRace));
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.out.find("racetrack replay (host backend)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MANIFESTED in 2 of 2 run(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#7 read"), std::string::npos) << r.out;
}

TEST(ReplayCli, AFixedTraceExitsZero) {
  TempDir dir;
  const CliRun r = run_cli(dir, "replay --stress --repeat 3" + kFast + shell_quote(kClean));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("0 corrupted read(s) seen"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no hazard to replay"), std::string::npos) << r.out;
}

TEST(ReplayCli, JsonReport) {
  TempDir dir;
  // The held-back D2H waits 100-200 ms: the reader must check all 16384
  // granules before it lands, even when a loaded machine preempts it.
  const CliRun r = run_cli(dir,
                           "replay --stress --format json --seed 5 --granule 64 --timing fast "
                           "--stress-ns 200000000 " +
                               shell_quote(kRace));
  ASSERT_EQ(r.code, 1) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("trace"), kRace);
  EXPECT_EQ(j.at("backend"), "host");
  EXPECT_GT(j.at("ops").get<uint64_t>(), 0u);
  EXPECT_EQ(j.at("runs"), 1);
  EXPECT_GT(j.at("wall_ns").get<int64_t>(), 0);
  EXPECT_GT(j.at("ops_per_second").get<double>(), 0);
  EXPECT_GT(j.at("corrupted_reads").get<uint64_t>(), 0u);
  EXPECT_GT(j.at("plan").at("islands").get<uint64_t>(), 0u);
  EXPECT_GT(j.at("plan").at("traced_bytes").get<uint64_t>(), 0u);
  EXPECT_EQ(j.at("plan").at("scale"), 1.0);
  ASSERT_EQ(j.at("hazards").size(), 1u);
  EXPECT_EQ(j.at("schema_version"), 3);
  const auto& h = j.at("hazards")[0];
  const auto& hazard = h.at("hazard");
  EXPECT_EQ(hazard.at("number"), 1);
  EXPECT_EQ(hazard.at("first").at("seq"), 4);
  EXPECT_EQ(hazard.at("second").at("seq"), 7);
  EXPECT_EQ(hazard.at("kind"), "raw");
  EXPECT_EQ(hazard.at("class"), "copy-vs-copy");
  EXPECT_EQ(hazard.at("confidence"), "definite");
  EXPECT_EQ(h.at("manifested"), true);
  EXPECT_EQ(h.at("manifested_runs"), 1);
  ASSERT_FALSE(h.at("stale").empty());
  const auto& s = h.at("stale")[0];
  EXPECT_EQ(s.at("reader_seq"), 7);
  EXPECT_EQ(s.at("expected_writer_seq"), 4);
  EXPECT_EQ(s.at("observed_writer_seq"), nullptr);  // the contents before the trace
  EXPECT_EQ(s.at("address"), "0x200000000");
  EXPECT_EQ(s.at("bytes"), 1048576);
  // --stress-ns fixes the window; the report says so.
  EXPECT_EQ(j.at("stress").at("budget_ns"), 10'000'000'000);
  EXPECT_EQ(j.at("stress").at("groups"), 1);
  const auto& hold = h.at("hold_back");
  EXPECT_EQ(hold.at("sized_from"), "stress-ns");
  EXPECT_EQ(hold.at("gap_ns"), nullptr);
  EXPECT_EQ(hold.at("shortest_ns"), 100'000'000);
  EXPECT_EQ(hold.at("longest_ns"), 200'000'000);
  EXPECT_EQ(hold.at("capped"), false);
  EXPECT_EQ(hold.at("held_runs"), 1);
}

// Without --stress-ns each hold is sized from the pair's gap, and the text
// and JSON reports say from which.
TEST(ReplayCli, HoldBacksAreSizedFromThePairsGap) {
  TempDir dir;
  const CliRun text = run_cli(dir, "replay --stress " + shell_quote(kRace));
  EXPECT_EQ(text.code, 1) << text.err;
  EXPECT_NE(text.out.find("MANIFESTED in 1 of 1 run(s)"), std::string::npos) << text.out;
  // The sample has no device times: the pair's gap is the model's.
  EXPECT_NE(text.out.find("in 1 of 1 run(s), sized from the pair's modelled gap ("), std::string::npos)
      << text.out;

  const CliRun json =
      run_cli(dir, "replay --stress --format json --timing fast --repeat 2 " + shell_quote(kRace));
  ASSERT_EQ(json.code, 1) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  const auto& hold = j.at("hazards").at(0).at("hold_back");
  EXPECT_EQ(hold.at("sized_from"), "modelled-gap") << "--timing fast: the model's gap";
  const int64_t gap = hold.at("gap_ns").get<int64_t>();
  EXPECT_GE(hold.at("shortest_ns").get<int64_t>(), gap + 20'000'000);
  EXPECT_EQ(hold.at("longest_ns").get<int64_t>(), hold.at("shortest_ns").get<int64_t>() * 3 / 2);
  EXPECT_EQ(hold.at("held_runs"), 2);

  const CliRun plain = run_cli(dir, "replay --format json --timing fast " + shell_quote(kRace));
  EXPECT_EQ(nlohmann::json::parse(plain.out).at("hazards").at(0).at("hold_back"), nullptr);
  EXPECT_EQ(nlohmann::json::parse(plain.out).at("stress"), nullptr);
}

TEST(ReplayCli, OutputWritesAReplayedTrace) {
  TempDir dir;
  const std::string out = dir.path("replayed.rtrace");
  const CliRun r = run_cli(dir, "replay" + kFast + "-o " + shell_quote(out) + " " + shell_quote(kClean));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("wrote the replayed timeline to " + out), std::string::npos) << r.err;
  EXPECT_TRUE(validate_file(out).errors.empty());
  const CliRun again = run_cli(dir, "replay" + kFast + shell_quote(out));
  EXPECT_EQ(again.code, 0) << again.err;
}

TEST(ReplayCli, CudaBackendWithoutAGpuExplainsAndExitsTwo) {
  std::string why;
  if (replay::cuda_available(why)) GTEST_SKIP() << "this machine and build can replay on a GPU";
  EXPECT_NE(why.find("--backend host"), std::string::npos) << why;
  TempDir dir;
  const CliRun r = run_cli(dir, "replay --backend cuda " + shell_quote(kRace));
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("cuda"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;

  replay::ReplayOptions o;
  o.backend = "cuda";
  auto report = replay::replay_file(kRace, o);
  ASSERT_FALSE(report);
  EXPECT_NE(report.error().describe().find("--backend cuda"), std::string::npos);
}

TEST(ReplayCli, BadFlagsExitTwo) {
  TempDir dir;
  for (const char* flags : {"--granule 0", "--granule 3", "--timing slow", "--backend opencl", "--repeat 0",
                            "--format xml", "--stress-ns 5", "--stress-budget-ns 5", "--memory-limit lots"}) {
    const CliRun r = run_cli(dir, "replay " + std::string(flags) + " " + shell_quote(kRace));
    EXPECT_EQ(r.code, 2) << flags << "\n" << r.out << r.err;
    EXPECT_FALSE(r.err.empty()) << flags;
  }
  replay::ReplayOptions o;
  o.backend = "opencl";
  auto report = replay::replay_file(kRace, o);
  ASSERT_FALSE(report);
  EXPECT_NE(report.error().describe().find("unknown backend"), std::string::npos);
}

TEST(ReplayCli, AMissingFileExitsTwo) {
  TempDir dir;
  const std::string missing = dir.path("missing.rtrace");
  const CliRun r = run_cli(dir, "replay " + shell_quote(missing));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  const CliRun none = run_cli(dir, "replay");
  EXPECT_EQ(none.code, 2);
}

}  // namespace
}  // namespace racetrack::replay_test
