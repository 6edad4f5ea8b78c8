// The checker on `racetrack synth --modes code` traces (raw argument words
// plus the kernels' machine-code modes): clean traces show nothing and every
// hazard left has a writer the machine code names; every injected hazard is
// found with modes that allow the ground truth's kind, its kernel side's
// mode from the machine code. What code modes cannot settle alone (a kernel's access
// still spans its whole driver segment) stays possible until extents from
// pointers land (docs/check.md).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "check_test_support.h"
#include "racetrack/code/access_modes.h"
#include "racetrack/race/code_modes.h"
#include "racetrack/traces/synth.h"
#include "test_support.h"

namespace racetrack::check_test {
namespace {

using racetrack::testing::TempDir;

enum class Modes { kRaw, kCode };

struct Synthesized {
  std::string path;
  SynthResult truth;
};

Synthesized synthesize_to(const TempDir& dir, uint64_t seed, Modes modes, uint32_t inject) {
  SynthOptions options;
  options.seed = seed;
  options.target_ops = 20000;
  options.known_modes = false;
  options.code_modes = modes == Modes::kCode;
  options.analyzer_version = code::kAnalyzerVersion;
  options.inject.fill(inject);
  const std::string path = dir.path("s" + std::to_string(seed) + (modes == Modes::kCode ? "_code" : "_raw") +
                                    "_" + std::to_string(inject) + ".rtrace");
  auto writer = TraceWriter::create(path);
  EXPECT_TRUE(writer.ok()) << writer.error().describe();
  auto result = synthesize(options, *writer);
  EXPECT_TRUE(result.ok()) << result.error().describe();
  EXPECT_TRUE(writer->close().ok());
  return {path, result.ok() ? *result : SynthResult{}};
}

race::CheckResult check(const std::string& path, bool keep_all, bool infer_blocks = true) {
  race::CheckOptions options = keep_all ? keep_all_options() : race::CheckOptions{};
  options.explain_and_fix = !keep_all;
  options.infer_blocks = infer_blocks;
  options.code_modes = std::make_shared<race::CodeModeTable>(race::CodeModesOptions{});
  auto result = race::check_file(path, options);
  EXPECT_TRUE(result.ok()) << result.error().describe();
  return result.ok() ? std::move(*result) : race::CheckResult{};
}

bool known_writer(const race::Hazard& h) {
  return (h.first.access.writes && h.first.access.mode_known) ||
         (h.second.access.writes && h.second.access.mode_known);
}

// A kernel, or a graph launch's kernel node (the optimizer step's replay).
bool is_kernel(const race::HazardSide& s) {
  return s.op_kind == OpKind::kKernel || s.op_kind == OpKind::kGraph;
}

TEST(SynthCodeModes, CleanTracesShowNothingAndEveryHazardHasAKnownWriter) {
  TempDir dir;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Synthesized code = synthesize_to(dir, seed, Modes::kCode, 0);
    ASSERT_TRUE(code.truth.injected.empty());
    EXPECT_EQ(check(code.path, false).shown_groups(), 0u);
    const race::CheckResult all = check(code.path, true);
    EXPECT_EQ(all.modes.launches[static_cast<int>(race::ModeSource::kUnknown)], 0u);
    EXPECT_GT(all.modes.launches[static_cast<int>(race::ModeSource::kMachineCode)], 1000u);
    for (const race::Hazard& h : all.all) {
      ASSERT_TRUE(known_writer(h)) << "#" << h.first.seq << " -> #" << h.second.seq
                                   << " needs an unknown mode to be a write";
      for (const race::HazardSide* s : {&h.first, &h.second})
        if (is_kernel(*s)) {
          EXPECT_EQ(s->access.mode_source, race::ModeSource::kMachineCode);
        }
    }
    // Raw words alone, over whole segments, give hazards the machine code
    // rules out (kernels that only read what a copy reads). (With extents
    // inferred from pointers, a clean raw trace has none to rule out.)
    const race::CheckResult whole = check(code.path, true, false);
    const race::CheckResult raw = check(synthesize_to(dir, seed, Modes::kRaw, 0).path, true, false);
    EXPECT_LT(whole.hazards, raw.hazards);
    EXPECT_EQ(raw.ops, all.ops);
  }
}

TEST(SynthCodeModes, EveryInjectedHazardIsFoundWithMachineCodeModes) {
  TempDir dir;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Synthesized s = synthesize_to(dir, seed, Modes::kCode, 2);
    ASSERT_GE(s.truth.injected.size(), 5u);
    const race::CheckResult result = check(s.path, true);
    std::map<std::pair<uint64_t, uint64_t>, const race::Hazard*> found;
    for (const race::Hazard& h : result.all) found.emplace(std::pair{h.first.seq, h.second.seq}, &h);
    for (const InjectedHazard& i : s.truth.injected) {
      SCOPED_TRACE(std::string(shape_name(i.shape)) + " #" + std::to_string(i.first_seq) + " -> #" +
                   std::to_string(i.second_seq) + " (" + i.where + ")");
      auto it = found.find({i.first_seq, i.second_seq});
      ASSERT_NE(it, found.end()) << "missed";
      const race::Hazard& h = *it->second;
      // The modes the machine code gives allow the truth's kind. (The kind
      // itself can differ: a kernel's words into one segment make one
      // access, which reads and writes when the kernel writes anything
      // there.)
      const bool first_writes = i.kind != "WAR", second_writes = i.kind != "RAW";
      EXPECT_TRUE(first_writes ? h.first.access.writes : h.first.access.reads);
      EXPECT_TRUE(second_writes ? h.second.access.writes : h.second.access.reads);
      EXPECT_TRUE(known_writer(h));
      for (const race::HazardSide* side : {&h.first, &h.second}) {
        if (!is_kernel(*side)) continue;
        EXPECT_TRUE(side->access.mode_known);
        EXPECT_EQ(side->access.mode_source, race::ModeSource::kMachineCode);
        // Raw words inside a driver segment: the block inferred from the
        // trace's pointers (extents from pointers), never exact.
        EXPECT_EQ(side->access.precision, v1::PRECISION_INFERRED);
      }
      EXPECT_EQ(h.confidence, race::hazard_confidence(h.first.access, h.second.access));
      // Shown at the default confidence (#16's acceptance for code modes).
      EXPECT_GE(h.confidence, race::Confidence::kLikely);
      if (!is_kernel(h.first) && !is_kernel(h.second)) {
        EXPECT_EQ(h.confidence, race::Confidence::kDefinite);
      }
    }
  }
}

}  // namespace
}  // namespace racetrack::check_test
