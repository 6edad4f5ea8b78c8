// `racetrack sim` from a shell: exit codes, bad arguments, JSON output and
// the simulated timeline (-o).
#include <gmock/gmock.h>

#include <cstdlib>
#include <optional>

#include "run_cli.h"
#include "sim_test_support.h"

namespace racetrack::sim_test {
namespace {

using testing::CliRun;
using ::testing::HasSubstr;
using testing::run_cli;
using testing::shell_quote;
using testing::TempDir;

const std::string kRace = shell_quote(kSamples + "/c1_reload_not_waited.race.pbtxt");
const std::string kClean = shell_quote(kSamples + "/c1_reload_not_waited.clean.pbtxt");

TEST(SimCli, ExitsOneWhenAHazardManifests) {
  TempDir dir;
  const CliRun r = run_cli(dir, "sim --adversarial " + kRace);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.out, HasSubstr("MANIFESTED"));
  EXPECT_THAT(r.out, HasSubstr("#7 read"));
}

TEST(SimCli, ExitsZeroOnACleanSample) {
  TempDir dir;
  const CliRun r = run_cli(dir, "sim --adversarial --jitter 0.5 --seed 3 " + kClean);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("no hazard to demonstrate"));
}

TEST(SimCli, ExitsTwoOnBadInput) {
  TempDir dir;
  const std::string missing = shell_quote(dir.path("missing.rtrace"));
  EXPECT_EQ(run_cli(dir, "sim " + missing).code, 2);
  for (const char* args : {"--slow compute", "--slow =2", "--slow compute=0", "--slow compute=x",
                           "--add-wait 4", "--add-wait 7:4", "--add-wait a:b"}) {
    const CliRun r = run_cli(dir, std::string("sim ") + args + " " + kRace);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_THAT(r.err, HasSubstr("sim: bad --")) << args;
  }
}

TEST(SimCli, AddWaitNeedsStreamWorkInTheTrace) {
  TempDir dir;
  CliRun r = run_cli(dir, "sim --add-wait 4:99 " + kRace);
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("not in the trace"));
  // The standard trace: every op kind simulates; #7 is a host read.
  const std::string standard = dir.path("standard.pbtxt");
  ASSERT_TRUE(save_trace(testing::standard_trace(2), standard));
  r = run_cli(dir, "sim " + shell_quote(standard));
  EXPECT_LT(r.code, 2) << r.err;
  r = run_cli(dir, "sim --add-wait 7:9 " + shell_quote(standard));
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("#7 is a host call"));
}

TEST(SimCli, UnknownStreamNameListsTheStreams) {
  TempDir dir;
  const CliRun r = run_cli(dir, "sim --slow nosuch=2 " + kRace);
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("nosuch"));
  EXPECT_THAT(r.err, HasSubstr("compute"));
  EXPECT_THAT(r.err, HasSubstr("d2h_stream"));
}

TEST(SimCli, SlowByNameRoleOrIdIsAccepted) {
  TempDir dir;
  for (const char* slow : {"compute=3", "d2h=3", "2=3"})
    EXPECT_EQ(run_cli(dir, std::string("sim --slow ") + slow + " " + kClean).code, 0) << slow;
}

TEST(SimCli, JsonReportParses) {
  TempDir dir;
  const CliRun r = run_cli(dir, "sim --adversarial --apply-fixes --format json " + kRace);
  EXPECT_EQ(r.code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j.at("makespan_ns").get<int64_t>(), 0);
  ASSERT_EQ(j.at("hazards").size(), 1u);
  EXPECT_EQ(j.at("schema_version"), 3);
  const auto& h = j.at("hazards")[0];
  EXPECT_EQ(h.at("hazard").at("number"), 1);
  EXPECT_EQ(h.at("hazard").at("first").at("seq"), 4);
  EXPECT_EQ(h.at("hazard").at("second").at("seq"), 7);
  EXPECT_EQ(h.at("schedule"), "adversarial");
  EXPECT_EQ(h.at("manifested"), true);
  EXPECT_EQ(h.at("stale")[0].at("reader_seq"), 7);
  EXPECT_EQ(j.at("what_if").at("hazards_left"), 0);
  EXPECT_EQ(j.at("what_if").at("corrupted_schedules"), 0);
}

TEST(SimCli, AddWaitFixesTheHazard) {
  TempDir dir;
  const CliRun r = run_cli(dir, "sim --add-wait 4:7 --format json " + kRace);
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("what_if").at("hazards_left"), 0) << r.err;
  EXPECT_EQ(j.at("what_if").at("corrupted_schedules"), 0);
}

TEST(SimCli, TimelineValidatesInTheSimulatedClockDomain) {
  TempDir dir;
  for (const char* name : {"timeline.rtrace", "timeline.pbtxt"}) {
    const std::string out = dir.path(name);
    const CliRun r = run_cli(dir, "sim --jitter 0.3 -o " + shell_quote(out) + " " + kRace);
    EXPECT_LT(r.code, 2) << r.err;
    EXPECT_THAT(r.err, HasSubstr("wrote the simulated timeline"));
    const CliRun v = run_cli(dir, "validate " + shell_quote(out));
    EXPECT_EQ(v.code, 0) << v.out << v.err;
    auto trace = load_trace(out);
    ASSERT_TRUE(trace) << trace.error().describe();
    EXPECT_EQ(trace->header().clock_domain(), v1::CLOCK_DOMAIN_SIMULATED);
    EXPECT_EQ(trace->header().producer(), "racetrack-sim");
  }
}

// Sets environment variables for the commands a test runs, and restores them.
class ScopedEnv {
 public:
  ScopedEnv(std::initializer_list<std::pair<const char*, std::string>> vars) {
    for (const auto& [name, value] : vars) {
      const char* old = std::getenv(name);
      saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
      setenv(name, value.c_str(), 1);
    }
  }
  ~ScopedEnv() {
    for (const auto& [name, old] : saved_)
      old ? static_cast<void>(setenv(name, old->c_str(), 1)) : static_cast<void>(unsetenv(name));
  }

 private:
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

// Spilled to files or kept in memory, the per-op arrays give the same
// report; where no spill file can be made, sim says so and keeps them in
// memory; a budget that is not a number is named.
TEST(SimCli, SpillingChangesNoResult) {
  TempDir dir;
  const std::string args = "sim --adversarial --apply-fixes " + kRace;
  const CliRun plain = run_cli(dir, args);
  ASSERT_EQ(plain.code, 1) << plain.err;
  {
    ScopedEnv env({{"RACETRACK_SPILL_ABOVE_MIB", "0"},
                   {"RACETRACK_SPILL_RESIDENT_MIB", "0"},
                   {"TMPDIR", dir.path("")}});
    const CliRun spilled = run_cli(dir, args);
    EXPECT_EQ(spilled.code, 1) << spilled.err;
    EXPECT_EQ(spilled.out, plain.out);
    EXPECT_EQ(spilled.err, plain.err);
  }
  {
    // Without --apply-fixes, which needs the temporary directory for the
    // fixed trace (an error then, below).
    ScopedEnv env({{"RACETRACK_SPILL_ABOVE_MIB", "0"}, {"TMPDIR", dir.path("no-such-directory")}});
    const CliRun in_memory = run_cli(dir, "sim --adversarial " + kRace);
    EXPECT_EQ(in_memory.code, 1) << in_memory.err;
    EXPECT_EQ(in_memory.out, run_cli(dir, "sim --adversarial " + kRace).out);
    EXPECT_THAT(in_memory.err, HasSubstr("cannot make a spill file in " + dir.path("no-such-directory")));
    EXPECT_THAT(in_memory.err, HasSubstr("keeping the data in memory"));
    const CliRun fixes = run_cli(dir, args);
    EXPECT_EQ(fixes.code, 2) << fixes.err;
    EXPECT_THAT(fixes.err, HasSubstr("set TMPDIR to a directory that exists"));
  }
  {
    ScopedEnv env({{"RACETRACK_SPILL_RESIDENT_MIB", "lots"}});
    const CliRun r = run_cli(dir, args);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_THAT(r.err, HasSubstr("RACETRACK_SPILL_RESIDENT_MIB=lots is not a number of MiB; ignored"));
  }
}

}  // namespace
}  // namespace racetrack::sim_test
