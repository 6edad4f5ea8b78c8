// Matching a run's operators to the baseline's and finding the first that
// differs: each kind of difference, recomputation against its forward
// original, data movement skipped, a baseline operator the run never ran,
// whether the inputs already differed; the command's text, JSON and exit
// codes.
#include "racetrack/diverge/first_divergence.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>

#include "racetrack/diverge/divergence_report.h"
#include "run_cli.h"
#include "test_support.h"

namespace racetrack::testing {
namespace {

using diverge::Difference;
using diverge::Digest;
using diverge::ValueRecord;
using diverge::ValuesRecord;

// A digest named `name`: its hash is the name's std::hash, in hex, as a
// record holds it.
Digest digest(const std::string& name, double sum = 1, double absmax = 1, uint64_t nan = 0) {
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016zx", std::hash<std::string>{}(name));
  return Digest{hash, "float32", 4, sum, absmax, nan, 0};
}

ValueRecord op(const std::string& phase, const std::string& module, const std::string& name, uint64_t n,
               std::vector<Digest> in, std::vector<Digest> out, const std::string& param = "") {
  ValueRecord r;
  r.phase = phase;
  r.module = module;
  r.op = name;
  r.n = n;
  r.param = param;
  r.in = std::move(in);
  r.out = std::move(out);
  return r;
}

ValuesRecord numbered(std::vector<ValueRecord> records) {
  ValuesRecord v;
  for (size_t i = 0; i < records.size(); ++i) records[i].seq = i;
  v.records = std::move(records);
  return v;
}

// A forward, a backward and a weight gradient.
std::vector<ValueRecord> baseline_ops() {
  return {op("forward", "m.fc1", "aten::addmm", 0, {digest("x")}, {digest("h")}),
          op("forward", "m", "aten::gelu", 0, {digest("h")}, {digest("a")}),
          op("backward", "m", "aten::gelu_backward", 0, {digest("g"), digest("h")}, {digest("gh")}),
          op("backward", "m.fc1", "aten::mm", 0, {digest("gh"), digest("x")}, {digest("gw")}),
          op("backward", "m.fc1", "grad", 0, {}, {digest("gw")}, "m.fc1.weight")};
}

TEST(Compare, EachKindOfDifference) {
  const diverge::Tolerance t;
  EXPECT_EQ(compare(digest("a"), digest("a"), t), Difference::kEqual);
  EXPECT_EQ(compare(digest("a", 1.0), digest("b", 1.0 + 1e-9), t), Difference::kWithinTolerance);
  EXPECT_EQ(compare(digest("a", 1.0), digest("b", 1.5), t), Difference::kValues);
  EXPECT_EQ(compare(digest("a", 1.0, 1.0), digest("0", 0, 0), t), Difference::kZerosVsNonZeros);
  EXPECT_EQ(compare(digest("a"), digest("b", 1, 1, 3), t), Difference::kNanInf);
  Digest half = digest("a");
  half.dtype = "float16";
  EXPECT_EQ(compare(digest("a"), half, t), Difference::kShape);
}

TEST(FirstDivergence, IdenticalRunsDoNotDiverge) {
  const ValuesRecord base = numbered(baseline_ops()), same = numbered(baseline_ops());
  const auto result = first_divergence(base, same, {});
  EXPECT_FALSE(result.diverged());
  EXPECT_EQ(result.compared, 5u);
  EXPECT_EQ(result.equal, 5u);
}

TEST(FirstDivergence, TheFirstDifferingOperatorWithItsInputsEqualIsWhereItStarts) {
  auto run = baseline_ops();
  run[2].out = {digest("0", 0, 0)};  // gelu_backward returns zeros
  run[3].in[0] = digest("0", 0, 0);  // and so the weight gradient differs after it
  run[3].out = {digest("0", 0, 0)};
  run[4].out = {digest("0", 0, 0)};
  const ValuesRecord base = numbered(baseline_ops()), zeros = numbered(run);
  const auto result = first_divergence(base, zeros, {});
  ASSERT_TRUE(result.first);
  EXPECT_EQ(result.first->run->op, "aten::gelu_backward");
  EXPECT_EQ(result.first->how, Difference::kZerosVsNonZeros);
  EXPECT_TRUE(result.first->inputs_differing.empty());
  ASSERT_TRUE(result.first_gradient);
  EXPECT_EQ(result.first_gradient->run->param, "m.fc1.weight");
  EXPECT_EQ(result.first_gradient->how, Difference::kZerosVsNonZeros);

  // An operator whose inputs already differ is not where it starts.
  auto later = baseline_ops();
  later[3].in[0] = digest("other");
  later[3].out = {digest("gw2", 2.0)};
  const ValuesRecord changed = numbered(later);
  const auto after = first_divergence(base, changed, {});
  ASSERT_TRUE(after.first);
  EXPECT_EQ(after.first->run->op, "aten::mm");
  EXPECT_EQ(after.first->inputs_differing, std::vector<size_t>{0});
}

TEST(FirstDivergence, RecomputationMatchesItsForwardOriginalAndCopiesAreSkipped) {
  auto run = baseline_ops();
  // Offload and reload copies, and the recomputed gelu before its backward.
  run.insert(run.begin() + 2, {op("forward", "m", "aten::_to_copy", 0, {digest("h")}, {digest("h")}),
                               op("backward", "m", "aten::copy_", 0, {digest("h")}, {digest("h")}),
                               op("recompute", "m", "aten::gelu", 0, {digest("h")}, {digest("a")})});
  const ValuesRecord base = numbered(baseline_ops()), offloaded = numbered(run);
  auto result = first_divergence(base, offloaded, {});
  EXPECT_FALSE(result.diverged());
  EXPECT_EQ(result.recomputed_matched, 1u);
  EXPECT_EQ(result.movement_skipped, 2u);
  EXPECT_EQ(result.compared, 6u);

  // A recomputation that does not reproduce its forward (dropout's RNG not
  // restored) is the divergence.
  run[4].out = {digest("a2", 3.0)};
  const ValuesRecord rng_lost = numbered(run);
  result = first_divergence(base, rng_lost, {});
  ASSERT_TRUE(result.first);
  EXPECT_EQ(result.first->run->phase, "recompute");
  EXPECT_TRUE(result.first->recompute_vs_forward);
  EXPECT_EQ(result.first->how, Difference::kValues);
}

TEST(FirstDivergence, AnOperatorTheRunNeverRanIsPlacedWhereItShouldHaveRun) {
  auto run = baseline_ops();
  run.erase(run.begin() + 3, run.end());  // the weight gradient never computed (PR 2123)
  run.push_back(op("optimizer", "", "aten::add_", 0, {digest("p")}, {digest("p2", 5.0)}));
  auto base = baseline_ops();
  base.push_back(op("optimizer", "", "aten::add_", 0, {digest("p")}, {digest("p3", 7.0)}));
  const ValuesRecord baseline = numbered(base), pruned = numbered(run);
  const auto result = first_divergence(baseline, pruned, {});
  ASSERT_TRUE(result.first);
  EXPECT_EQ(result.first->how, Difference::kMissing);
  EXPECT_EQ(result.first->run, nullptr);
  EXPECT_EQ(result.first->baseline->op, "aten::mm");  // before the optimizer's differing add_
  ASSERT_NE(result.first->run_before, nullptr);       // where on the run's timeline it belongs
  EXPECT_EQ(result.first->run_before->op, "aten::gelu_backward");
  ASSERT_TRUE(result.first_gradient);
  EXPECT_EQ(result.first_gradient->baseline->param, "m.fc1.weight");
  EXPECT_EQ(result.missing_from_run, 2u);
  const std::string text = format_text(result, {});
  EXPECT_NE(text.find("backward m.fc1 aten::mm #0  (baseline record 3): the run never ran it"),
            std::string::npos)
      << text;
}

TEST(FirstDivergence, WithinToleranceCountsUnlessIgnored) {
  auto run = baseline_ops();
  run[1].out = {digest("a-rounded", 1.0 + 1e-9)};
  const ValuesRecord base = numbered(baseline_ops()), rounded = numbered(run);
  EXPECT_TRUE(first_divergence(base, rounded, {}).diverged());
  diverge::DiffOptions loose;
  loose.ignore_within_tolerance = true;
  EXPECT_FALSE(first_divergence(base, rounded, loose).diverged());
}

std::string write_record(const TempDir& dir, const std::string& name,
                         const std::vector<ValueRecord>& records) {
  std::string text = R"({"racetrack_values": 1, "torch": "test"})"
                     "\n";
  uint64_t seq = 0;
  for (const ValueRecord& r : records) {
    nlohmann::json j = {{"seq", seq++}, {"phase", r.phase}, {"module", r.module}, {"op", r.op}, {"n", r.n}};
    if (!r.param.empty()) j["param"] = r.param;
    for (const char* side : {"in", "out"}) {
      nlohmann::json list = nlohmann::json::array();
      for (const Digest& d : std::string(side) == "in" ? r.in : r.out)
        list.push_back({{"hash", d.hash},
                        {"dtype", d.dtype},
                        {"numel", d.numel},
                        {"sum", d.sum},
                        {"absmax", d.absmax},
                        {"nan", d.nan},
                        {"inf", d.inf}});
      j[side] = list;
    }
    text += j.dump() + "\n";
  }
  write_bytes(dir.path(name), text);
  return shell_quote(dir.path(name));
}

TEST(DiffCommand, ExitCodesTextAndJson) {
  TempDir dir;
  const std::string baseline = write_record(dir, "baseline.jsonl", baseline_ops());
  auto bad = baseline_ops();
  bad[2].out = {digest("0", 0, 0)};
  const std::string run = write_record(dir, "run.jsonl", bad);

  CliRun same = run_cli(dir, "diff " + baseline + " " + baseline);
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_NE(same.out.find("no operator's outputs differ"), std::string::npos) << same.out;

  CliRun text = run_cli(dir, "diff " + baseline + " " + run);
  EXPECT_EQ(text.code, 1) << text.err;
  EXPECT_NE(text.out.find("first divergence:\n  backward m aten::gelu_backward #0"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("zeros against non-zeros"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("this operator is where the divergence starts"), std::string::npos) << text.out;

  CliRun json = run_cli(dir, "diff --format json " + baseline + " " + run);
  EXPECT_EQ(json.code, 1) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_TRUE(j["diverged"].get<bool>());
  EXPECT_EQ(j["first_divergence"]["run"]["op"], "aten::gelu_backward");
  EXPECT_EQ(j["first_divergence"]["how"], "zeros-vs-nonzeros");
  EXPECT_TRUE(j["first_divergence"]["starts_here"].get<bool>());
  EXPECT_TRUE(j["first_gradient"].is_null());  // the weight gradient itself is equal here

  CliRun missing = run_cli(dir, "diff " + baseline + " " + shell_quote(dir.path("nope.jsonl")));
  EXPECT_EQ(missing.code, 2);
}

}  // namespace
}  // namespace racetrack::testing
