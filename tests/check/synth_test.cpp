// Recall and precision on `racetrack synth` traces: every injected hazard is
// found, clean traces show nothing definite or likely (with known kernel
// modes or only raw argument words), hazards that are shown all touch an
// injected pair, and the trace rewritten with the suggested fixes checks
// clean. Per shape, at 10^4 ops: the injected pair is shown at the default
// confidence with its kind, address and bytes, and the explanation names
// the shape where check has one (C9, C10, C11, C14, C15, C16, C16_unjoined).
#include "racetrack/traces/synth.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "check_test_support.h"
#include "racetrack/code/access_modes.h"
#include "test_support.h"

namespace racetrack::check_test {
namespace {

using racetrack::testing::TempDir;

struct Synthesized {
  std::string path;
  SynthResult truth;
};

Synthesized synthesize_to(const TempDir& dir, uint64_t seed, uint64_t ops, bool known_modes, uint32_t inject,
                          size_t ops_per_chunk = WriterOptions{}.ops_per_chunk) {
  SynthOptions options;
  options.seed = seed;
  options.target_ops = ops;
  options.known_modes = known_modes;
  options.analyzer_version = code::kAnalyzerVersion;
  options.inject.fill(inject);
  const std::string path =
      dir.path("s" + std::to_string(seed) + "_" + std::to_string(ops) + (known_modes ? "_known" : "_raw") +
               "_" + std::to_string(inject) + "_" + std::to_string(ops_per_chunk) + ".rtrace");
  WriterOptions writing;
  writing.ops_per_chunk = ops_per_chunk;
  auto writer = TraceWriter::create(path, writing);
  EXPECT_TRUE(writer.ok()) << writer.error().describe();
  auto result = synthesize(options, *writer);
  EXPECT_TRUE(result.ok()) << result.error().describe();
  EXPECT_TRUE(writer->close().ok());
  return {path, result.ok() ? *result : SynthResult{}};
}

race::CheckResult check_path(const std::string& path, race::CheckOptions options) {
  auto result = race::check_file(path, options);
  EXPECT_TRUE(result.ok()) << result.error().describe();
  return result.ok() ? std::move(*result) : race::CheckResult{};
}

// Every hazard of a file, without the fix pass.
race::CheckResult check_every_hazard(const std::string& path) {
  race::CheckOptions options = keep_all_options();
  options.explain_and_fix = false;
  return check_path(path, options);
}

bool shown_by_default(const race::Hazard& h) {
  return h.confidence >= race::Confidence::kLikely;
}

struct Size {
  uint64_t seed, ops;
};

class Synth : public ::testing::TestWithParam<bool> {};

TEST_P(Synth, EveryInjectedHazardIsFoundAndEveryShownOneTouchesAnInjection) {
  const bool known = GetParam();
  TempDir dir;
  for (const Size size : {Size{1, 20000}, Size{2, 20000}, Size{3, 60000}}) {
    SCOPED_TRACE("seed " + std::to_string(size.seed) + ", " + std::to_string(size.ops) + " ops");
    const Synthesized s = synthesize_to(dir, size.seed, size.ops, known, 2);
    ASSERT_GE(s.truth.injected.size(), 5u);
    const race::CheckResult result = check_every_hazard(s.path);
    ASSERT_GE(result.ops, size.ops / 2);

    std::set<std::pair<uint64_t, uint64_t>> found;
    std::set<std::tuple<uint64_t, uint64_t, std::string>> found_kinds;
    for (const race::Hazard& h : result.all) {
      found.insert({h.first.seq, h.second.seq});
      found_kinds.insert({h.first.seq, h.second.seq, std::string(race::kind_name(h.kind))});
    }
    std::set<uint64_t> injected_ops, second_ops;
    for (const race::Hazard& h : result.all) second_ops.insert(h.second.seq);
    for (const InjectedHazard& i : s.truth.injected) {
      injected_ops.insert(i.first_seq);
      injected_ops.insert(i.second_seq);
      if (!known && i.shape == HazardShape::kC6) {
        // Raw words: every kernel that took the tensor's pointer may have
        // written it, so the D2H pairs with the last of them (the kernel
        // reading the tensor after its producer), not the producer.
        EXPECT_TRUE(second_ops.count(i.second_seq)) << "C6 #" << i.second_seq << " missed";
        continue;
      }
      EXPECT_TRUE(found.count({i.first_seq, i.second_seq}))
          << shape_name(i.shape) << " #" << i.first_seq << " -> #" << i.second_seq << " (" << i.where
          << ") missed";
      if (known) {
        EXPECT_TRUE(found_kinds.count({i.first_seq, i.second_seq, i.kind}))
            << shape_name(i.shape) << " #" << i.first_seq << " -> #" << i.second_seq << " not " << i.kind;
      }
    }
    for (const race::Hazard& h : result.all) {
      if (!shown_by_default(h)) continue;
      EXPECT_TRUE(injected_ops.count(h.first.seq) || injected_ops.count(h.second.seq))
          << race::confidence_name(h.confidence) << " hazard #" << h.first.seq << " -> #" << h.second.seq
          << " touches no injected pair";
    }
  }
}

TEST_P(Synth, CleanTracesShowNothingDefiniteOrLikely) {
  const bool known = GetParam();
  TempDir dir;
  for (const Size size : {Size{4, 20000}, Size{5, 60000}}) {
    SCOPED_TRACE("seed " + std::to_string(size.seed) + ", " + std::to_string(size.ops) + " ops");
    const Synthesized s = synthesize_to(dir, size.seed, size.ops, known, 0);
    ASSERT_TRUE(s.truth.injected.empty());
    const race::CheckResult result = check_every_hazard(s.path);
    EXPECT_EQ(result.by_confidence[static_cast<int>(race::Confidence::kDefinite)], 0u);
    EXPECT_EQ(result.by_confidence[static_cast<int>(race::Confidence::kLikely)], 0u);
    for (const race::Hazard& h : result.all)
      EXPECT_FALSE(shown_by_default(h)) << "#" << h.first.seq << " -> #" << h.second.seq;
    // What a default check shows.
    EXPECT_EQ(check_path(s.path, race::CheckOptions{}).shown_groups(), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, Synth, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "Known" : "Raw"; });

// `check --emit-fixed`: the fixes of every shown hazard, written into the
// trace, leave nothing to show.
TEST(SynthFixes, FixedTraceChecksClean) {
  TempDir dir;
  for (const bool known : {true, false}) {
    SCOPED_TRACE(known ? "known modes" : "raw words");
    const Synthesized s = synthesize_to(dir, 6, 20000, known, 1);
    ASSERT_FALSE(s.truth.injected.empty());
    const race::CheckResult result = check_path(s.path, race::CheckOptions{});
    if (known) {
      ASSERT_GT(result.shown_groups(), 0u);
    }
    EXPECT_TRUE(result.fixes_verified) << result.hazards_after_fixes << " hazard(s) left after the fixes";
    for (const race::HazardGroup& g : result.groups) {
      EXPECT_TRUE(!g.shown || g.fix.verified) << g.signature;
    }
    const std::string fixed = dir.path(known ? "fixed_known.rtrace" : "fixed_raw.rtrace");
    const Status written = race::write_fixed_trace(s.path, fixed, race::fix_edits(result));
    ASSERT_TRUE(written.ok()) << written.error().describe();
    const race::CheckResult again = check_path(fixed, race::CheckOptions{});
    EXPECT_EQ(again.shown_groups(), 0u);
    // A wait per edit, and a record for each that does not reuse an event of the trace.
    uint64_t inserted = 0;
    for (const race::FixEdit& e : race::fix_edits(result)) inserted += e.existing_event ? 1 : 2;
    EXPECT_EQ(again.ops, result.ops + inserted);
  }
}

// Fixes verified a chunk behind the check (in-pass, or read again from the
// start when the check reports a hazard whose first op the verifier has
// passed: small chunks) give what a pass of their own gives.
TEST(SynthFixes, VerifiedDuringThePassAsInAPassOfItsOwn) {
  TempDir dir;
  for (const size_t chunk : {size_t{32768}, size_t{500}}) {
    for (const bool known : {true, false}) {
      SCOPED_TRACE(std::to_string(chunk) + " ops a chunk, " + (known ? "known modes" : "raw words"));
      const Synthesized s = synthesize_to(dir, 7, 120000, known, 1, chunk);
      race::CheckOptions own_pass;
      own_pass.verify_during_pass = false;
      race::CheckOptions in_pass;
      bool second_pass = false;  // the stage a pass of its own shows
      in_pass.progress = [&](std::string_view stage, uint64_t, uint64_t) {
        second_pass |= stage == "verifying fixes";
      };
      const race::CheckResult during = check_path(s.path, in_pass);
      const race::CheckResult apart = check_path(s.path, own_pass);
      // With small chunks, pairs span more than the chunk the verifier lags.
      EXPECT_EQ(second_pass, chunk == 500);
      ASSERT_EQ(during.groups.size(), apart.groups.size());
      EXPECT_TRUE(during.fixes_checked);
      EXPECT_EQ(during.fixes_verified, apart.fixes_verified);
      EXPECT_EQ(during.hazards_after_fixes, apart.hazards_after_fixes);
      size_t named_points = 0;
      for (size_t i = 0; i < during.groups.size(); ++i) {
        const race::HazardGroup& a = during.groups[i];
        const race::HazardGroup& b = apart.groups[i];
        EXPECT_EQ(a.fix.verified, b.fix.verified) << a.signature;
        EXPECT_EQ(a.explanation, b.explanation) << a.signature;
        if (a.shown) {
          EXPECT_FALSE(a.explanation.empty()) << a.signature;
        }
        named_points += a.explanation.find("only up to #") != std::string::npos;
      }
      if (known) {
        EXPECT_GT(during.shown_groups(), 0u);
        EXPECT_GT(named_points, 0u);  // the ops the explanations name were found
      }
    }
  }
}

// One shape at a time, with known modes at 10^4 ops.
struct ShapeCase {
  HazardShape shape;
  const char* why;  // in the explanation of the pair's group ("" where check names no shape)
};

void PrintTo(const ShapeCase& c, std::ostream* out) {
  *out << shape_name(c.shape);
}

class SynthShape : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(SynthShape, InjectedPairIsShownWithItsKindAddressAndBytes) {
  const ShapeCase c = GetParam();
  TempDir dir;
  SynthOptions options;
  options.seed = 1;
  options.target_ops = 10000;
  options.analyzer_version = code::kAnalyzerVersion;
  options.inject[static_cast<int>(c.shape)] = 1;
  const std::string path = dir.path(std::string(shape_name(c.shape)) + ".rtrace");
  auto writer = TraceWriter::create(path);
  ASSERT_TRUE(writer.ok());
  auto truth = synthesize(options, *writer);
  ASSERT_TRUE(truth.ok()) << truth.error().describe();
  ASSERT_TRUE(writer->close().ok());
  ASSERT_EQ(truth->injected.size(), 1u);
  for (uint32_t n : truth->not_placed) EXPECT_EQ(n, 0u);

  const race::CheckResult result = check_path(path, race::CheckOptions{});
  for (const InjectedHazard& i : truth->injected) {
    SCOPED_TRACE("#" + std::to_string(i.first_seq) + " -> #" + std::to_string(i.second_seq) + " (" + i.where +
                 ")");
    EXPECT_EQ(i.shape, c.shape);
    auto hit = std::find_if(result.shown.begin(), result.shown.end(), [&](const race::Hazard& h) {
      return h.first.seq == i.first_seq && h.second.seq == i.second_seq;
    });
    ASSERT_NE(hit, result.shown.end()) << "not shown";
    EXPECT_EQ(race::kind_name(hit->kind), i.kind);
    EXPECT_EQ(hit->lo, i.address);
    EXPECT_EQ(hit->hi - hit->lo, i.bytes);
    const std::string& why = result.groups[hit->group].explanation;
    EXPECT_NE(why.find(c.why), std::string::npos) << why;
  }
  // The rest of the trace is clean: whatever else is shown shares an op with an injected pair.
  for (const race::Hazard& h : result.shown) {
    const bool touches =
        std::any_of(truth->injected.begin(), truth->injected.end(), [&](const InjectedHazard& i) {
          return h.first.seq == i.first_seq || h.second.seq == i.second_seq || h.first.seq == i.second_seq ||
                 h.second.seq == i.first_seq;
        });
    EXPECT_TRUE(touches) << "#" << h.first.seq << " -> #" << h.second.seq;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, SynthShape,
    ::testing::Values(
        ShapeCase{HazardShape::kC1, ""}, ShapeCase{HazardShape::kC2, ""}, ShapeCase{HazardShape::kC3, ""},
        ShapeCase{HazardShape::kC4, ""}, ShapeCase{HazardShape::kC5, ""}, ShapeCase{HazardShape::kC6, ""},
        ShapeCase{HazardShape::kC7, ""}, ShapeCase{HazardShape::kC8, ""},
        ShapeCase{HazardShape::kC9, "waited, but on an event recorded on another stream than reload_h2d"},
        ShapeCase{HazardShape::kC10, "waited on one producer of"},
        ShapeCase{HazardShape::kC11, "waited, but on an event recorded on another stream than offload_d2h"},
        ShapeCase{HazardShape::kC12, ""}, ShapeCase{HazardShape::kC13, ""},
        ShapeCase{HazardShape::kC15, "its code has no grid-dependency wait"},
        ShapeCase{HazardShape::kC14, "where the completion of external agent checkpoint_writer"},
        ShapeCase{HazardShape::kC16, "at its capture-time address"},
        ShapeCase{HazardShape::kC16Unjoined,
                  "forked into the capture, is not joined back into graph_capture"},
        ShapeCase{HazardShape::kC12Bucket, "waited, but on an event recorded on another stream than nccl_comm"},
        ShapeCase{HazardShape::kC6AllGather, "waited, but on an event recorded on another stream than nccl_comm"},
        ShapeCase{HazardShape::kC11Stash, "waited, but on an event recorded on another stream than offload_d2h"}),
    [](const ::testing::TestParamInfo<ShapeCase>& p) { return std::string(shape_name(p.param.shape)); });

}  // namespace
}  // namespace racetrack::check_test
