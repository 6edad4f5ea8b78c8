// What a new user of the command line runs into: mistyped subcommands and
// options, numbers that are not what the option takes, flags with units,
// flags that need another flag, stale suppressions, kernel argument words,
// readable times and progress on stderr.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "racetrack/traces/trace_io.h"
#include "run_cli.h"
#include "test_support.h"

namespace racetrack {
namespace {

using ::testing::AllOf;
using testing::CliRun;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::shell_quote;
using testing::split_lines;
using testing::TempDir;

const std::string kSamples = RACETRACK_SAMPLES_DIR;

class Usability : public ::testing::Test {
 protected:
  CliRun racetrack(const std::string& args) { return testing::run_cli(dir_, args); }
  // The C1 sample: one hazard, an offload event recorded after the offload.
  const std::string race_ = shell_quote(kSamples + "/c1_reload_not_waited.race.pbtxt");
  TempDir dir_;
};

// --- subcommands and options ---------------------------------------------

TEST_F(Usability, AnUnknownSubcommandIsNamedWithTheNearestOne) {
  const CliRun run = racetrack("chek " + race_);
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("unknown subcommand 'chek'; did you mean 'check'?"));
  EXPECT_THAT(run.err, HasSubstr("subcommands: info validate dump"));
  EXPECT_THAT(run.out, IsEmpty());
  EXPECT_THAT(racetrack("replya " + race_).err, HasSubstr("did you mean 'replay'?"));
  const CliRun far = racetrack("frobnicate");
  EXPECT_EQ(far.code, 2);
  EXPECT_THAT(far.err, AllOf(HasSubstr("unknown subcommand 'frobnicate'"), Not(HasSubstr("did you mean"))));
}

TEST_F(Usability, AnUnknownOptionIsNamedWithTheNearestOne) {
  const CliRun run = racetrack("sim " + race_ + " --sede 3");
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("racetrack sim: unknown option '--sede'; did you mean '--seed'?"));
  EXPECT_THAT(racetrack("check " + race_ + " --format=json --emit-fixd x").err,
              HasSubstr("unknown option '--emit-fixd'; did you mean '--emit-fixed'?"));
}

// --- numbers ----------------------------------------------------------------

// Every numeric argument of every subcommand, given what it must refuse: the
// message names the argument, and nothing runs.
TEST_F(Usability, EveryNumericArgumentRefusesWhatItIsNot) {
  const std::string out = shell_quote(dir_.path("o.rtrace"));
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"why " + race_ + " -1 5", "FIRST: '-1' is negative"},
      {"why " + race_ + " 1 5x", "SECOND: '5x' is not a whole number"},
      {"dump " + race_ + " --from -3", "--from: '-3' is negative"},
      {"dump " + race_ + " --to 99999999999999999999", "--to: '99999999999999999999' is out of range"},
      {"validate " + race_ + " --max-errors -1", "--max-errors: '-1' is negative"},
      {"check " + race_ + " --max -5", "--max: '-5' is negative"},
      {"check " + race_ + " --max 1.5", "--max: '1.5' is not a whole number"},
      {"sim " + race_ + " --seed -1", "--seed: '-1' is negative"},
      {"sim " + race_ + " --jitter nan", "--jitter: 'nan' is not a finite number"},
      {"sim " + race_ + " --jitter 0.5x", "--jitter: '0.5x' is not a number"},
      {"sim " + race_ + " --jitter-schedules -2 --apply-fixes", "--jitter-schedules: '-2' is negative"},
      {"sim " + race_ + " --kernel-slots 5000000000", "--kernel-slots: '5000000000' is out of range"},
      {"sim " + race_ + " --h2d-gbps 0", "--h2d-gbps: '0' must be above 0"},
      {"sim " + race_ + " --d2h-gbps -3", "--d2h-gbps: '-3' must be above 0"},
      {"sim " + race_ + " --kernel-ns 1.5", "--kernel-ns: '1.5' is not a whole number"},
      {"sim " + race_ + " --slow compute=2x", "bad --slow 'compute=2x'"},
      {"sim " + race_ + " --add-wait 4:-7", "bad --add-wait '4:-7'"},
      {"replay " + race_ + " --repeat -1", "--repeat: '-1' is negative"},
      {"replay " + race_ + " --stress --seed -1", "--seed: '-1' is negative"},
      {"replay " + race_ + " --stress --stress-ns abc", "--stress-ns: 'abc' is not a whole number"},
      {"replay " + race_ + " --granule -4096", "--granule: '-4096' is negative"},
      {"replay " + race_ + " --memory-limit -1", "--memory-limit: '-1' is negative"},
      {"synth -o " + out + " --seed -1", "--seed: '-1' is negative"},
      {"synth -o " + out + " --ops -5", "--ops: '-5' is negative"},
      {"synth -o " + out + " --layers -2", "--layers: '-2' is negative"},
      {"synth -o " + out + " --microbatches many", "--microbatches: 'many' is not a whole number"},
      {"synth -o " + out + " --activation-bytes -1", "--activation-bytes: '-1' is negative"},
      {"synth -o " + out + " --inject C3:-1", "bad --inject 'C3:-1'"},
      {"synth -o " + out + " --inject C3@-2", "bad --inject 'C3@-2'"},
  };
  for (const Case& c : cases) {
    const CliRun run = racetrack(c.args);
    EXPECT_EQ(run.code, 2) << c.args;
    EXPECT_THAT(run.err, HasSubstr(c.message)) << c.args;
    EXPECT_THAT(run.out, IsEmpty()) << c.args;
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.path("o.rtrace")));
}

TEST_F(Usability, NumbersAreDecimalOrHex) {
  // CLI11 alone reads "010" as octal 8.
  const auto lines = split_lines(racetrack("dump " + race_ + " --from 07 --to 0x7").out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].rfind("#7 ", 0), 0u) << lines[0];
}

// --- units --------------------------------------------------------------------

TEST_F(Usability, FlagsWithUnitsNameThem) {
  EXPECT_THAT(racetrack("sim --help").out,
              AllOf(HasSubstr("--kernel-ns"), HasSubstr("kernels without traced times (ns)"),
                    HasSubstr("--h2d-gbps"), HasSubstr("(GB/s)"), Not(HasSubstr("--kernel-us"))));
  EXPECT_THAT(racetrack("replay --help").out,
              AllOf(HasSubstr("--stress-ns"), HasSubstr("delay (ns)"), HasSubstr("bytes per version stamp"),
                    HasSubstr("arena bytes")));
  EXPECT_THAT(racetrack("synth --help").out, HasSubstr("bytes of one activation tensor"));
}

// --kernel-ns is nanoseconds: the modelled kernel lasts exactly that long.
TEST_F(Usability, KernelNsIsNanoseconds) {
  const std::string timeline = dir_.path("timeline.pbtxt");
  const CliRun run =
      racetrack("sim " + race_ + " --modelled-times --kernel-ns 5000000 -o " + shell_quote(timeline));
  ASSERT_NE(run.code, 2) << run.err;
  auto trace = load_trace(timeline);
  ASSERT_TRUE(trace.ok()) << trace.error().describe();
  const v1::Op& kernel = trace->ops(0);
  ASSERT_TRUE(kernel.has_kernel());
  EXPECT_EQ(kernel.device_end() - kernel.device_start(), 5'000'000);
}

TEST_F(Usability, TheOldKernelUsSpellingSaysWhatItBecame) {
  const CliRun run = racetrack("sim " + race_ + " --kernel-us 20");
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("it is now --kernel-ns"));
  EXPECT_THAT(run.out, IsEmpty());
}

// --- flags that need another ------------------------------------------------

TEST_F(Usability, FlagsThatNeedAnotherSaySo) {
  const std::string warning = "does nothing without";
  const CliRun seed = racetrack("sim " + race_ + " --seed 7");
  EXPECT_NE(seed.code, 2) << seed.err;
  EXPECT_THAT(seed.err, HasSubstr("sim: warning: --seed seeds the jitter; it does nothing without --jitter"));
  EXPECT_THAT(racetrack("sim " + race_ + " --seed 7 --jitter 0.3").err, Not(HasSubstr(warning)));
  EXPECT_THAT(racetrack("sim " + race_ + " --seed 7 --apply-fixes --jitter-schedules 2").err,
              Not(HasSubstr(warning)));

  // Silently skipping the what-if runs would pass the fix as tested under jitter.
  const CliRun schedules = racetrack("sim " + race_ + " --jitter-schedules 3");
  EXPECT_EQ(schedules.code, 2);
  EXPECT_THAT(schedules.err,
              HasSubstr("--jitter-schedules tries the fixed trace under jitter: it needs --apply-fixes"));
  EXPECT_THAT(schedules.out, IsEmpty());

  for (const char* flag : {"--seed 3", "--stress-ns 5000"}) {
    const CliRun replay = racetrack("replay " + race_ + " --timing fast " + flag);
    EXPECT_NE(replay.code, 2) << replay.err;
    EXPECT_THAT(replay.err, AllOf(HasSubstr("replay: warning: "), HasSubstr("without --stress"))) << flag;
    EXPECT_THAT(racetrack("replay " + race_ + " --timing fast --stress " + flag).err, Not(HasSubstr(warning)))
        << flag;
  }

  const CliRun all = racetrack("check " + race_ + " --all");
  EXPECT_EQ(all.code, 1);
  EXPECT_THAT(all.err, HasSubstr("check: warning: --all lists hazards in the JSON report only"));
  EXPECT_THAT(racetrack("check " + race_ + " --all --format json").err, Not(HasSubstr(warning)));
}

// --- check --suppress ------------------------------------------------------

TEST_F(Usability, SuppressionsThatMatchNoHazardAreReportedWithTheirLine) {
  const std::string signature =
      "memcpy D2H @fwd/layer#/offload [d2h] -> memcpy H2D @bwd/layer#/recompute [compute] RAW";
  const std::string stale = "kernel gone @fwd/layer#/attn [compute] -> kernel other [compute] RAW";
  const std::string file = dir_.path("suppress.txt");
  testing::write_bytes(file, "# known and tracked\n" + signature + "\n\n" + stale + "\n");
  const CliRun run = racetrack("check " + race_ + " --suppress " + shell_quote(file));
  EXPECT_EQ(run.code, 0) << "the only hazard is suppressed\n" << run.err;
  EXPECT_THAT(run.err, HasSubstr(file + ":4: suppression matches no hazard in this trace: " + stale));
  EXPECT_THAT(run.err, Not(HasSubstr(":2:")));
}

// --- dump and info ------------------------------------------------------------

TEST_F(Usability, DumpShowsKernelArgumentWordsByOneBasedIndex) {
  const auto lines = split_lines(racetrack("dump --kind kernel " + race_).out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("  words 1=0x7f0000000000 2=0x7f0000200000 3=0x40000"));
  EXPECT_THAT(lines[1], HasSubstr("  words 1=0x7f0000400000 2=0x7f0000600000 3=0x40000"));
  // No words on other ops.
  for (const auto& line : split_lines(racetrack("dump --kind memcpy " + race_).out))
    EXPECT_THAT(line, Not(HasSubstr("words")));
}

TEST_F(Usability, DumpRefusesAnEmptySeqRange) {
  const CliRun run = racetrack("dump " + race_ + " --from 9 --to 3");
  EXPECT_EQ(run.code, 2);
  EXPECT_THAT(run.err, HasSubstr("--from 9 is after --to 3"));
}

TEST_F(Usability, InfoPrintsTheSpanInAReadableUnit) {
  const CliRun run = racetrack("info " + race_);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("8 ops in 1 chunk(s), spanning 30.5 \u00b5s (host times only)"));
}

// --- progress -------------------------------------------------------------------

// Sets an environment variable for the commands a test runs.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

// Each long stage shows on one \r-redrawn line, wiped at the end; the
// report on stdout is the same. (Here stderr is a file, so the progress is
// forced; on a terminal it shows by itself once the work runs 0.5 s.)
TEST_F(Usability, ProgressNamesEachStageOnOneLine) {
  const CliRun plain = racetrack("check " + race_);
  EXPECT_THAT(plain.err, Not(HasSubstr("\r"))) << "stderr is not a terminal";
  const ScopedEnv always("RACETRACK_PROGRESS", "always");
  struct Case {
    std::string args;
    std::vector<std::string> stages;
  };
  const std::vector<Case> cases = {
      // Fixes are verified during the check: "verifying fixes" is a stage
      // only when that cannot keep up (docs/check.md, "Verifying fixes").
      {"check " + race_, {"checking"}},
      {"sim " + race_ + " --adversarial --apply-fixes",
       {"loading", "checking", "demonstrating hazards", "trying the fixes"}},
      {"replay " + race_ + " --timing fast", {"loading", "checking", "replaying"}},
      {"export " + race_ + " " + shell_quote(dir_.path("out.json")),
       {"matching records to waits", "exporting"}},
  };
  for (const Case& c : cases) {
    const CliRun run = racetrack(c.args);
    ASSERT_NE(run.code, 2) << c.args << "\n" << run.err;
    for (const std::string& stage : c.stages) EXPECT_THAT(run.err, HasSubstr("\r" + stage + ": ")) << c.args;
    EXPECT_THAT(run.err, Not(HasSubstr("\n"))) << "one line, redrawn: " << c.args;
    ASSERT_FALSE(run.err.empty());
    EXPECT_EQ(run.err.back(), '\r') << "wiped at the end: " << c.args;
  }
  const CliRun check = racetrack("check " + race_);
  EXPECT_THAT(check.err, HasSubstr("\rchecking: 100%"));
  EXPECT_EQ(check.out, plain.out);
}

}  // namespace
}  // namespace racetrack
