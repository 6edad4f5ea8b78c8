// Machine-code modes in the checker (docs/check.md, "Where access modes come
// from"): a kernel's argument words take their modes from an op-level
// record first, then the machine code of the trace's module, then a
// --kernel-modes rule, else they are unknown. Each precedence test fails if
// the two sources it compares are swapped. Also: escaping words, words that
// are no pointers, stale analyses, indirect kernels, and the mode source in
// the text and JSON reports.
#include "racetrack/race/code_modes.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "check_test_support.h"
#include "racetrack/code/access_modes.h"
#include "racetrack/race/report.h"
#include "racetrack/traces/builder.h"
#include "racetrack/traces/sha256.h"
#include "racetrack/traces/trace_io.h"
#include "test_support.h"

namespace racetrack::check_test {
namespace {

using race::ModeSource;
using race::ResolvedAccess;

// Two allocator blocks in one segment, a compute and a copy stream.
struct Scene {
  TraceBuilder b;
  StreamId compute = b.stream("compute", v1::ROLE_COMPUTE);
  StreamId copy = b.stream("d2h", v1::ROLE_D2H);
  Buffer segment = b.device_buffer("segment", 1 << 20);
  Buffer a = b.alloc_at("a", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, compute, segment.base);
  Buffer c = b.alloc_at("c", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, compute, segment.base + 65536);
  Buffer host = b.pinned_buffer("host", 4096);
};

v1::FunctionCode function(TraceBuilder& b, std::string_view name, std::vector<v1::WordMode> words,
                          bool indirect = false, uint32_t version = code::kAnalyzerVersion) {
  v1::FunctionCode f;
  f.set_name(b.intern(name));
  for (v1::WordMode w : words) f.add_words(w);
  f.set_indirect_access(indirect);
  f.set_analyzer_version(version);
  return f;
}

// A module without an image: its stored analysis only.
uint32_t add_module(TraceBuilder& b, std::vector<v1::FunctionCode> functions, std::string_view tag = "m") {
  return b.module("test-module", "", Sha256::hex(tag.data(), tag.size()), std::move(functions));
}

// A launch with raw argument words only, naming `module`.
void code_kernel(TraceBuilder& b, StreamId s, std::string_view name, const std::vector<uint64_t>& words,
                 uint32_t module) {
  b.kernel(s, name, {}, {}, {.raw_words_only = true, .scalars = words});
  b.last_op().mutable_kernel()->set_module(module);
}

std::shared_ptr<race::CodeModeTable> table() {
  return std::make_shared<race::CodeModeTable>(race::CodeModesOptions{});  // no result cache
}

std::vector<race::KernelModeRule> rules(const std::string& text) {
  auto parsed = race::parse_kernel_modes(text);
  EXPECT_TRUE(parsed.ok()) << parsed.error().message;
  return parsed.ok() ? *parsed : std::vector<race::KernelModeRule>{};
}

// The last op's accesses as the checker resolves them.
std::vector<ResolvedAccess> resolve_last(const v1::Chunk& trace,
                                         std::vector<race::KernelModeRule> kernel_rules,
                                         std::shared_ptr<race::CodeModeTable> code_modes,
                                         race::ModeUse* use = nullptr) {
  TraceTables tables;
  tables.add(trace);
  race::AccessResolver resolver(std::move(kernel_rules), std::move(code_modes));
  resolver.add_entities(trace, tables);
  std::vector<ResolvedAccess> out;
  for (const auto& op : trace.ops()) {
    resolver.on_op(op);
    resolver.resolve(op, out);
  }
  if (use) *use = resolver.mode_use();
  return out;
}

void expect_mode(const ResolvedAccess& a, bool reads, bool writes, bool known, ModeSource source) {
  EXPECT_EQ(a.reads, reads);
  EXPECT_EQ(a.writes, writes);
  EXPECT_EQ(a.mode_known, known);
  EXPECT_EQ(race::mode_source_name(a.mode_source), std::string(race::mode_source_name(source)));
}

TEST(CodeModes, EachWordGetsTheModeOfTheMachineCode) {
  Scene s;
  const uint32_t m = add_module(s.b, {function(s.b, "k", {v1::WORD_WRITE, v1::WORD_READ, v1::WORD_NONE})});
  code_kernel(s.b, s.compute, "k", {s.a.base + 8, s.c.base, 42}, m);
  race::ModeUse use;
  const auto accesses = resolve_last(s.b.take(), {}, table(), &use);
  ASSERT_EQ(accesses.size(), 2u);
  EXPECT_EQ(accesses[0].region, s.a.region);
  expect_mode(accesses[0], false, true, true, ModeSource::kMachineCode);
  EXPECT_EQ(accesses[1].region, s.c.region);
  expect_mode(accesses[1], true, false, true, ModeSource::kMachineCode);
  EXPECT_EQ(use.launches[static_cast<int>(ModeSource::kMachineCode)], 1u);
  EXPECT_TRUE(use.notes.empty());
}

TEST(CodeModes, ARecordBeatsTheMachineCode) {
  Scene s;
  // The record says the kernel reads a; its machine code says word 1 is written.
  const uint32_t m = add_module(s.b, {function(s.b, "k", {v1::WORD_WRITE})});
  s.b.kernel(s.compute, "k", {s.a}, {});
  s.b.last_op().mutable_kernel()->set_module(m);
  const auto accesses = resolve_last(s.b.take(), {}, table());
  ASSERT_EQ(accesses.size(), 1u);
  expect_mode(accesses[0], true, false, true, ModeSource::kRecorded);
}

TEST(CodeModes, TheMachineCodeBeatsARule) {
  Scene s;
  const uint32_t m = add_module(s.b, {function(s.b, "k", {v1::WORD_READ})});
  code_kernel(s.b, s.compute, "k", {s.a.base}, m);
  const auto accesses = resolve_last(s.b.take(), rules("^k$ writes=1"), table());
  ASSERT_EQ(accesses.size(), 1u);
  expect_mode(accesses[0], true, false, true, ModeSource::kMachineCode);
}

TEST(CodeModes, ARuleBeatsUnknownWhereTheModuleDoesNotHaveTheKernel) {
  Scene s;
  const uint32_t m = add_module(s.b, {function(s.b, "other", {v1::WORD_WRITE})});
  code_kernel(s.b, s.compute, "k", {s.a.base}, m);
  const v1::Chunk trace = s.b.take();
  race::ModeUse use;
  auto accesses = resolve_last(trace, rules("^k$ reads=1"), table(), &use);
  ASSERT_EQ(accesses.size(), 1u);
  expect_mode(accesses[0], true, false, true, ModeSource::kRule);
  EXPECT_EQ(use.launches[static_cast<int>(ModeSource::kRule)], 1u);
  accesses = resolve_last(trace, {}, table(), &use);
  ASSERT_EQ(accesses.size(), 1u);
  expect_mode(accesses[0], true, true, false, ModeSource::kUnknown);
  EXPECT_EQ(use.launches[static_cast<int>(ModeSource::kUnknown)], 1u);
}

TEST(CodeModes, AnEscapingWordIsUnknownUnlessARuleSettlesIt) {
  Scene s;
  const uint32_t m = add_module(s.b, {function(s.b, "k", {v1::WORD_ESCAPES, v1::WORD_READ})});
  code_kernel(s.b, s.compute, "k", {s.a.base, s.c.base}, m);
  const v1::Chunk trace = s.b.take();
  auto accesses = resolve_last(trace, {}, table());
  ASSERT_EQ(accesses.size(), 2u);
  expect_mode(accesses[0], true, true, false, ModeSource::kMachineCode);
  expect_mode(accesses[1], true, false, true, ModeSource::kMachineCode);
  accesses = resolve_last(trace, rules("^k$ reads=1"), table());
  ASSERT_EQ(accesses.size(), 2u);
  expect_mode(accesses[0], true, false, true, ModeSource::kRule);
  expect_mode(accesses[1], true, false, true, ModeSource::kMachineCode);
}

TEST(CodeModes, AWordThatIsNoPointerHasNoAccess) {
  Scene s;
  const uint32_t m = add_module(s.b, {function(s.b, "k", {v1::WORD_NONE, v1::WORD_WRITE})});
  // Word 1 holds a's address, but the kernel never reaches memory through it.
  code_kernel(s.b, s.compute, "k", {s.a.base, s.c.base}, m);
  const auto accesses = resolve_last(s.b.take(), {}, table());
  ASSERT_EQ(accesses.size(), 1u);
  EXPECT_EQ(accesses[0].region, s.c.region);
  expect_mode(accesses[0], false, true, true, ModeSource::kMachineCode);
}

TEST(CodeModes, WordsIntoOneRegionJoinTheirModesAndKeepTheLeastTrustedSource) {
  Scene s;
  const uint32_t m = add_module(s.b, {function(s.b, "k", {v1::WORD_READ, v1::WORD_ESCAPES})});
  code_kernel(s.b, s.compute, "k", {s.a.base, s.a.base + 64}, m);
  const auto accesses = resolve_last(s.b.take(), {}, table());
  ASSERT_EQ(accesses.size(), 1u);
  expect_mode(accesses[0], true, true, false, ModeSource::kMachineCode);
}

TEST(CodeModes, AnAnalysisOfAnotherAnalyzerVersionIsNotUsedAndTheReportSaysSo) {
  Scene s;
  const uint32_t m =
      add_module(s.b, {function(s.b, "k", {v1::WORD_READ}, false, code::kAnalyzerVersion + 1)});
  code_kernel(s.b, s.compute, "k", {s.a.base}, m);
  race::ModeUse use;
  const auto accesses = resolve_last(s.b.take(), {}, table(), &use);
  ASSERT_EQ(accesses.size(), 1u);
  expect_mode(accesses[0], true, true, false, ModeSource::kUnknown);
  ASSERT_EQ(use.notes.size(), 1u);
  EXPECT_NE(use.notes[0].find("machine code of 1 module not analysed"), std::string::npos) << use.notes[0];
  EXPECT_NE(use.notes[0].find("analyzer version"), std::string::npos) << use.notes[0];
}

TEST(CodeModes, WithoutATableTheMachineCodeIsNotUsed) {
  Scene s;
  const uint32_t m = add_module(s.b, {function(s.b, "k", {v1::WORD_READ})});
  code_kernel(s.b, s.compute, "k", {s.a.base}, m);
  const auto accesses = resolve_last(s.b.take(), {}, nullptr);
  ASSERT_EQ(accesses.size(), 1u);
  expect_mode(accesses[0], true, true, false, ModeSource::kUnknown);
}

TEST(CodeModes, AKernelWithoutAModuleIdGetsNoMachineCodeModes) {
  Scene s;
  add_module(s.b, {function(s.b, "k", {v1::WORD_READ})});
  code_kernel(s.b, s.compute, "k", {s.a.base}, 0);
  const auto accesses = resolve_last(s.b.take(), {}, table());
  ASSERT_EQ(accesses.size(), 1u);
  expect_mode(accesses[0], true, true, false, ModeSource::kUnknown);
}

// The D2H copy reads a while the kernel, unordered on another stream,
// writes it: a likely WAR (a block extent and a known writer) whose kernel
// side says its mode came from the machine code.
struct RacingScene : Scene {
  explicit RacingScene(bool indirect = false) {
    module = add_module(b, {function(b, "writer_kernel", {v1::WORD_WRITE, v1::WORD_NONE}, indirect)});
    b.memcpy(copy, host, a);
    code_kernel(b, compute, "writer_kernel", {a.base, 7}, module);
  }
  uint32_t module = 0;
};

race::CheckOptions with_table() {
  race::CheckOptions o = keep_all_options();
  o.code_modes = table();
  return o;
}

TEST(CodeModesReport, AHazardSaysItsKernelsModeCameFromTheMachineCode) {
  RacingScene s;
  const v1::Chunk trace = s.b.take();
  const race::CheckResult result = check_all(trace, with_table());
  ASSERT_EQ(result.all.size(), 1u);
  const race::Hazard& h = result.all[0];
  EXPECT_EQ(h.kind, race::HazardKind::kWar);
  EXPECT_EQ(h.confidence, race::Confidence::kLikely);
  EXPECT_EQ(h.first.access.mode_source, ModeSource::kRecorded);
  EXPECT_EQ(h.second.access.mode_source, ModeSource::kMachineCode);
  // Without the machine code the kernel's mode is unknown: possible only.
  const race::CheckResult blind = check_all(trace);
  ASSERT_EQ(blind.all.size(), 1u);
  EXPECT_EQ(blind.all[0].confidence, race::Confidence::kPossible);
  EXPECT_EQ(blind.all[0].second.access.mode_source, ModeSource::kUnknown);

  race::ReportOptions report;
  report.trace_path = "racing.rtrace";
  const std::string text = race::format_text(result, report);
  EXPECT_NE(text.find("writes (machine code)"), std::string::npos) << text;
  EXPECT_NE(text.find("kernel modes: 1 launch(es); 0 recorded, 1 from machine code"), std::string::npos)
      << text;
  const std::string blind_text = race::format_text(blind, report);
  EXPECT_EQ(blind_text.find("(machine code)"), std::string::npos) << blind_text;

  std::ostringstream json_text;
  race::write_json(json_text, result, report);
  const auto j = nlohmann::json::parse(json_text.str());
  const auto& hazard = j["groups"][0]["hazard"];
  EXPECT_EQ(hazard["first"]["access"]["mode_source"], "recorded");
  EXPECT_EQ(hazard["second"]["access"]["mode_source"], "machine-code");
  EXPECT_EQ(hazard["second"]["access"]["indirect_access"], false);
  EXPECT_EQ(j["access_modes"]["launches"]["machine_code"], 1);
  EXPECT_EQ(j["access_modes"]["launches"]["unknown"], 0);
}

TEST(CodeModesReport, KernelsReachingMemoryIndirectlyAreNeverCalledClean) {
  // The same race, but ordered: nothing to show, yet the kernel reaches
  // memory through pointers the check cannot see.
  Scene s;
  const uint32_t m = add_module(s.b, {function(s.b, "gather_kernel", {v1::WORD_READ}, true)});
  code_kernel(s.b, s.compute, "gather_kernel", {s.a.base}, m);
  const race::CheckResult result = check_all(s.b.take(), with_table());
  EXPECT_EQ(result.shown_groups(), 0u);
  ASSERT_EQ(result.modes.indirect_kernels.size(), 1u);
  EXPECT_EQ(result.modes.indirect_launches, 1u);
  race::ReportOptions report;
  const std::string text = race::format_text(result, report);
  EXPECT_NE(text.find("1 kernel(s), launched 1 time(s), also reach memory through pointers no argument word "
                      "gives"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("gather_kernel"), std::string::npos) << text;

  RacingScene racing(true);
  const race::CheckResult raced = check_all(racing.b.take(), with_table());
  ASSERT_EQ(raced.all.size(), 1u);
  EXPECT_TRUE(raced.all[0].second.access.indirect);
  report.min_confidence = race::Confidence::kPossible;
  const std::string raced_text = race::format_text(raced, report);
  EXPECT_NE(raced_text.find("those accesses are not checked"), std::string::npos) << raced_text;
}

// Modules arrive with the chunks: a module in a later chunk is there for
// the kernels after it, both passes of check_file (the fix re-check adds
// the chunks again) share one table, and --emit-fixed keeps the modules.
TEST(CodeModesReport, AModuleInALaterChunkServesTheKernelsAfterIt) {
  racetrack::testing::TempDir dir;
  const std::string path = dir.path("chunks.rtrace");
  auto writer = TraceWriter::create(path, WriterOptions{.compress = false, .ops_per_chunk = 2});
  ASSERT_TRUE(writer.ok()) << writer.error().describe();
  {
    TraceBuilder b(*writer);
    auto compute = b.stream("compute", v1::ROLE_COMPUTE);
    auto copy = b.stream("d2h", v1::ROLE_D2H);
    auto segment = b.device_buffer("segment", 1 << 20);
    auto block = b.alloc_at("block", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, compute, segment.base);  // seq 1
    auto host = b.pinned_buffer("host", 4096);
    b.memcpy(copy, host, block);  // seq 2
    b.mark("next chunk");         // seq 3
    const uint32_t m = add_module(b, {function(b, "writer_kernel", {v1::WORD_WRITE})});
    code_kernel(b, compute, "writer_kernel", {block.base}, m);  // seq 4
    ASSERT_TRUE(b.finish().ok());
  }
  ASSERT_TRUE(writer->close().ok());
  ASSERT_GE(writer->chunks_written(), 2u);
  race::CheckOptions options;
  options.code_modes = table();
  auto result = race::check_file(path, options);
  ASSERT_TRUE(result.ok()) << result.error().describe();
  ASSERT_EQ(result->shown_groups(), 1u);
  EXPECT_EQ(result->groups[0].first.second.access.mode_source, ModeSource::kMachineCode);
  EXPECT_TRUE(result->fixes_checked);
  EXPECT_TRUE(result->fixes_verified);
  EXPECT_EQ(options.code_modes->counts().modules, 1u);
  // The trace with the fixes written keeps its modules (and validates).
  const std::string fixed = dir.path("fixed.rtrace");
  ASSERT_TRUE(race::write_fixed_trace(path, fixed, race::fix_edits(*result)).ok());
  race::CheckOptions again = keep_all_options();
  again.code_modes = table();
  auto rechecked = race::check_file(fixed, again);
  ASSERT_TRUE(rechecked.ok()) << rechecked.error().describe();
  EXPECT_EQ(rechecked->shown_groups(), 0u);
  EXPECT_EQ(rechecked->modes.launches[static_cast<int>(ModeSource::kMachineCode)], 1u);
}

TEST(WordAccess, PrecedenceOfMachineCodeThenRuleThenUnknown) {
  code::KernelModes k;
  k.words = {code::WordMode::kRead, code::WordMode::kEscapes};
  race::KernelModeRule rule;
  rule.writes = {1, 2, 3};
  auto w = race::word_access(&k, &rule, 1);
  EXPECT_TRUE(w.reads && !w.writes && w.known && w.source == ModeSource::kMachineCode);
  w = race::word_access(&k, &rule, 2);  // escapes: the rule settles it
  EXPECT_TRUE(!w.reads && w.writes && w.known && w.source == ModeSource::kRule);
  w = race::word_access(&k, nullptr, 2);
  EXPECT_TRUE(w.reads && w.writes && !w.known && w.source == ModeSource::kMachineCode);
  w = race::word_access(&k, nullptr, 3);  // past the parameter buffer the analysis saw
  EXPECT_TRUE(w.reads && w.writes && !w.known && w.source == ModeSource::kUnknown);
  w = race::word_access(nullptr, nullptr, 1);
  EXPECT_TRUE(w.reads && w.writes && !w.known && w.source == ModeSource::kUnknown);
}

}  // namespace
}  // namespace racetrack::check_test
