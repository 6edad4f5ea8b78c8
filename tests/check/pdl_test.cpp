// Rule 1a in the checker (docs/ordering-rules.md): a PDL secondary whose
// machine code does not wait races its primary, with an explanation and a
// fix that say so; one that waits does not. The C15 samples, and variants
// of them that flip each input of the rule.
#include <gtest/gtest.h>

#include <string>

#include "check_test_support.h"
#include "racetrack/race/code_modes.h"
#include "racetrack/traces/trace_io.h"
#include "test_support.h"

namespace racetrack::check_test {
namespace {

using racetrack::testing::TempDir;

const std::string kRace = std::string(RACETRACK_SAMPLES_DIR) + "/c15_pdl_wait_missing.race.pbtxt";
const std::string kClean = std::string(RACETRACK_SAMPLES_DIR) + "/c15_pdl_wait_missing.clean.pbtxt";

v1::Chunk load(const std::string& path) {
  auto trace = load_trace(path);
  EXPECT_TRUE(trace) << trace.error().describe();
  return trace ? *trace : v1::Chunk{};
}

v1::Kernel& secondary(v1::Chunk& trace) {
  return *trace.mutable_ops(1)->mutable_kernel();  // seq 2
}
v1::FunctionCode& secondary_code(v1::Chunk& trace) {
  return *trace.mutable_modules(0)->mutable_functions(1);  // gemm_epilogue
}

const std::vector<Expected> kPair = {{1, 2, race::HazardKind::kRaw, race::HazardClass::kComputeVsCompute}};

TEST(PdlCheck, SecondaryWithoutWaitRacesItsPrimary) {
  const race::CheckResult r = expect_hazards(load(kRace), kPair);
  ASSERT_EQ(r.all.size(), 1u);
  EXPECT_TRUE(r.all[0].pdl);
  EXPECT_EQ(r.all[0].pdl_wait, hb::PdlWait::kNone);
  EXPECT_EQ(r.all[0].confidence, race::Confidence::kDefinite) << "the machine code says it never waits";
}

TEST(PdlCheck, SecondaryThatWaitsIsOrdered) {
  expect_clean(load(kClean));
}

TEST(PdlCheck, WithoutTheAttributeStreamOrderHolds) {
  v1::Chunk trace = load(kRace);
  secondary(trace).set_programmatic_stream_serialization(false);
  expect_clean(trace);
}

TEST(PdlCheck, AccessesBeforeTheWaitRace) {
  v1::Chunk trace = load(kClean);
  secondary_code(trace).set_accesses_before_wait(true);
  const race::CheckResult r = expect_hazards(trace, kPair);
  EXPECT_EQ(r.all[0].pdl_wait, hb::PdlWait::kAccessesBefore);
}

TEST(PdlCheck, UnknownCodeIsAPossibleHazard) {
  v1::Chunk trace = load(kClean);
  secondary(trace).set_module(0);  // no machine code for it
  const race::CheckResult r = expect_hazards(trace, kPair);
  EXPECT_EQ(r.all[0].confidence, race::Confidence::kPossible);
  EXPECT_EQ(r.all[0].pdl_wait, hb::PdlWait::kUnknown);
  // An analysis of another analyzer version counts as none.
  trace = load(kClean);
  secondary_code(trace).set_analyzer_version(code::kAnalyzerVersion + 1);
  EXPECT_EQ(expect_hazards(trace, kPair).all[0].confidence, race::Confidence::kPossible);
  // Hidden at check's default --min-confidence.
  EXPECT_TRUE(check_all(trace, race::CheckOptions{}).shown.empty());
}

TEST(PdlCheck, TheCodeModeTableGivesTheSameFacts) {
  // One table per trace: a table keeps the first module it sees of an id.
  auto with_table = [] {
    race::CheckOptions options = keep_all_options();
    options.code_modes = std::make_shared<race::CodeModeTable>(race::CodeModesOptions{});
    return options;
  };
  EXPECT_EQ(expect_hazards(load(kRace), kPair, with_table()).all[0].confidence, race::Confidence::kDefinite);
  expect_clean(load(kClean), with_table());
}

TEST(PdlCheck, ExplanationAndFixSayItIsPdl) {
  auto r = race::check_file(kRace, race::CheckOptions{});
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->groups.size(), 1u);
  const race::HazardGroup& g = r->groups[0];
  EXPECT_EQ(g.explanation,
            "#2 on compute was launched with programmatic stream serialization after #1, and its code "
            "has no grid-dependency wait (machine code)");
  EXPECT_NE(
      g.fix.text.find("add cudaGridDependencySynchronize() (griddepcontrol.wait) before the first read"),
      std::string::npos)
      << g.fix.text;
  EXPECT_NE(g.fix.text.find("without the PDL attribute"), std::string::npos) << g.fix.text;
  EXPECT_TRUE(g.fix.verified);
}

}  // namespace
}  // namespace racetrack::check_test
