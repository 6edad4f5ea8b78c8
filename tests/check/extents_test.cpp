// Extents from pointers (docs/check.md): anchored hazards gain confidence,
// unanchored ones stay possible, inferred blocks narrow raw argument words
// and the report says so; the evidence order ranks what is not shown, and a
// report with hidden hazards never reads as clean. Ends with the raw synth
// trace with every shape injected, at a small size.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "check_test_support.h"
#include "racetrack/race/report.h"
#include "racetrack/race/settle.h"
#include "racetrack/traces/builder.h"
#include "racetrack/traces/synth.h"
#include "test_support.h"

namespace racetrack::check_test {
namespace {

using race::Confidence;

// A cudaMalloc segment of 1 MiB, a pinned buffer, two unordered streams.
struct Raw {
  TraceBuilder b;
  StreamId s1 = b.stream("s1", v1::ROLE_COMPUTE);
  StreamId s2 = b.stream("s2", v1::ROLE_H2D);
  Buffer seg = b.device_buffer("segment", 1 << 20);
  Buffer host = b.pinned_buffer("host", 1 << 20);

  void kernel(StreamId s, std::string_view name, const std::vector<uint64_t>& words) {
    b.kernel(s, name, {}, {}, {.raw_words_only = true, .scalars = words});
  }
  void h2d(StreamId s, uint64_t offset, uint64_t bytes) {
    b.memcpy(s, seg.slice(offset, bytes), host.slice(0, bytes));
  }
};

race::CheckOptions whole_segments() {
  race::CheckOptions o = keep_all_options();
  o.infer_blocks = false;
  return o;
}

TEST(Anchors, CopyWritingWhereAKernelPointsIsLikely) {
  for (const bool infer : {true, false}) {
    SCOPED_TRACE(infer ? "inferred blocks" : "whole segments");
    Raw r;
    r.h2d(r.s2, 4096, 4096);                              // seq 1: writes [4096, 8192)
    r.kernel(r.s1, "reader", {r.seg.base + 4096 + 128});  // seq 2: a pointer into it
    const race::CheckResult result = check_all(r.b.take(), infer ? keep_all_options() : whole_segments());
    ASSERT_EQ(result.all.size(), 1u);
    const race::Hazard& h = result.all[0];
    EXPECT_TRUE(h.anchored);
    EXPECT_EQ(h.confidence, Confidence::kLikely);
    EXPECT_EQ(h.second.access.precision, infer ? v1::PRECISION_INFERRED : v1::PRECISION_SEGMENT);
    EXPECT_FALSE(h.second.access.mode_known);
  }
}

// The resolver remembers where recent argument words pointed; a region
// freed and another allocated at its address must not leave the old answer.
TEST(Anchors, AWordSeenAgainAfterItsRegionWasReplacedFindsTheNewOne) {
  for (const v1::RegionOrigin origin : {v1::ORIGIN_CUDA_MALLOC, v1::ORIGIN_FRAMEWORK_BLOCK}) {
    SCOPED_TRACE(v1::RegionOrigin_Name(origin));
    Raw r;
    const Buffer first = r.b.alloc("first", 4096, origin, r.s1);
    r.kernel(r.s1, "k", {first.base});  // remembered: first
    r.b.cuda_free(first);
    const Buffer second = r.b.alloc("second", 4096, origin, r.s1, &first);
    ASSERT_EQ(second.base, first.base);
    r.b.memcpy(r.s2, second, r.host.slice(0, 4096));  // writes second, unordered with the launch below
    r.kernel(r.s1, "k", {first.base});                // the same word
    const race::CheckResult result = check_all(r.b.take());
    ASSERT_EQ(result.all.size(), 1u);
    EXPECT_EQ(result.all[0].second.access.region, second.region);
  }
}

TEST(Anchors, UnanchoredInferredExtentStaysPossible) {
  Raw r;
  r.kernel(r.s1, "k", {r.seg.base});  // seq 1: no boundary yet, so [base, end)
  r.h2d(r.s2, 8192, 4096);            // seq 2: writes bytes the pointer is not in
  const race::CheckResult result = check_all(r.b.take());
  ASSERT_EQ(result.all.size(), 1u);
  EXPECT_FALSE(result.all[0].anchored);
  EXPECT_EQ(result.all[0].confidence, Confidence::kPossible);
  EXPECT_EQ(result.all[0].first.access.precision, v1::PRECISION_INFERRED);
}

// Two kernels handed one same pointer, the first writing through it by its
// known mode and the second reading: both inferred, and likely (the PDL
// GEMM and its residual add, C15; a forked side stream's kernel and the
// capture end, C16). Pointers differing by a byte stay possible.
TEST(Anchors, KernelsSharingAPointerWithAKnownWriterAreLikely) {
  for (const uint64_t offset : {uint64_t{0}, uint64_t{1}}) {
    SCOPED_TRACE("second pointer + " + std::to_string(offset));
    Raw r;
    r.kernel(r.s1, "producer", {r.seg.base + 4096});           // seq 1: writes word 1
    r.kernel(r.s2, "consumer", {r.seg.base + 4096 + offset});  // seq 2: reads word 1
    race::CheckOptions options = keep_all_options();
    auto rules = race::parse_kernel_modes("producer writes=1\nconsumer reads=1\n");
    ASSERT_TRUE(rules.ok());
    options.kernel_modes = *rules;
    const race::CheckResult result = check_all(r.b.take(), options);
    ASSERT_EQ(result.all.size(), 1u);
    const race::Hazard& h = result.all[0];
    EXPECT_EQ(h.first.access.precision, v1::PRECISION_INFERRED);
    EXPECT_EQ(h.second.access.precision, v1::PRECISION_INFERRED);
    EXPECT_EQ(h.anchored, offset == 0);
    EXPECT_EQ(h.confidence, offset == 0 ? Confidence::kLikely : Confidence::kPossible);
  }
}

// Two copies filling the halves of one tensor, a reader handed its start
// (C10's split reload): the seam between the copies is not a block's end,
// so the reader's block covers both halves and the second copy is anchored
// across the seam. A pointer at the seam, or a gap between the copies,
// ends the block there instead.
TEST(Anchors, CopiesFillingOneTensorLeaveOneBlock) {
  enum Variant { kSeam, kPointerAtSeam, kGap };
  for (const Variant v : {kSeam, kPointerAtSeam, kGap}) {
    SCOPED_TRACE(v == kSeam ? "seam" : v == kPointerAtSeam ? "pointer at the seam" : "gap");
    Raw r;
    if (v == kPointerAtSeam) r.kernel(r.s1, "other", {r.seg.base + 8192});
    r.h2d(r.s2, 4096, 4096);                          // the first half
    r.h2d(r.s2, v == kGap ? 8192 + 64 : 8192, 4096);  // the second half
    r.kernel(r.s1, "reader", {r.seg.base + 4096});
    race::CheckOptions options = keep_all_options();
    auto rules = race::parse_kernel_modes("reader reads=1\nother reads=1\n");
    ASSERT_TRUE(rules.ok());
    options.kernel_modes = *rules;
    const race::CheckResult result = check_all(r.b.take(), options);
    const race::Hazard* second_half = nullptr;
    for (const race::Hazard& h : result.all)
      if (h.first.access.lo >= r.seg.base + 8192 && h.second.access.precision == v1::PRECISION_INFERRED)
        second_half = &h;
    if (v != kSeam) {
      EXPECT_EQ(second_half, nullptr);
      continue;
    }
    ASSERT_NE(second_half, nullptr);
    EXPECT_EQ(second_half->second.access.lo, r.seg.base + 4096);
    EXPECT_EQ(second_half->second.access.hi, r.seg.base + 12288);
    EXPECT_TRUE(second_half->anchored);
    EXPECT_EQ(second_half->confidence, Confidence::kLikely);
  }
}

TEST(Anchors, NoKnownWriterStaysPossibleEvenAnchored) {
  Raw r;
  r.b.memcpy(r.s2, r.host.slice(0, 4096), r.seg.slice(0, 4096));  // D2H: reads [0, 4096)
  r.kernel(r.s1, "k", {r.seg.base});
  const race::CheckResult result = check_all(r.b.take());
  ASSERT_EQ(result.all.size(), 1u);
  EXPECT_TRUE(result.all[0].anchored);
  EXPECT_EQ(result.all[0].confidence, Confidence::kPossible);
}

TEST(InferredBlocks, PointersAndCopiesPartitionASegment) {
  Raw r;
  r.kernel(r.s1, "writer_b", {r.seg.base + 65536});  // seq 1: [64K, end)
  r.kernel(r.s1, "writer_a", {r.seg.base});          // seq 2: [0, 64K), cut at the boundary of seq 1
  r.h2d(r.s2, 131072, 4096);                         // seq 3: inside writer_b's block only
  const v1::Chunk trace = r.b.take();

  const race::CheckResult inferred = check_all(trace);
  ASSERT_EQ(inferred.all.size(), 1u);
  EXPECT_EQ(inferred.all[0].first.seq, 1u);
  EXPECT_EQ(inferred.inferred_accesses, 2u);
  // Against the whole segment, writer_a races with the copy instead
  // (its access covers, and so supersedes, writer_b's).
  const race::CheckResult whole = check_all(trace, whole_segments());
  ASSERT_EQ(whole.all.size(), 1u);
  EXPECT_EQ(whole.all[0].first.seq, 2u);
  EXPECT_EQ(whole.inferred_accesses, 0u);

  race::ReportOptions report;
  report.min_confidence = Confidence::kPossible;
  const std::string text = race::format_text(inferred, report);
  EXPECT_NE(text.find("2 kernel access(es) inside driver allocations were narrowed to blocks inferred"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("inferred extent"), std::string::npos) << text;
  EXPECT_EQ(race::format_text(whole, report).find("narrowed"), std::string::npos);
}

TEST(InferredBlocks, TwoPointersOfOneLaunchSplitTheSegment) {
  Raw r;
  r.kernel(r.s1, "k", {r.seg.base + 4096, r.seg.base});
  const v1::Chunk trace = r.b.take();
  TraceTables tables;
  tables.add(trace);
  race::AccessResolver resolver;
  resolver.add_entities(trace, tables);
  std::vector<race::ResolvedAccess> out;
  for (const v1::Op& op : trace.ops()) {
    resolver.on_op(op);
    resolver.resolve(op, out);
  }
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].lo, r.seg.base + 4096);
  EXPECT_EQ(out[0].hi, r.seg.base + r.seg.size);
  EXPECT_EQ(out[1].lo, r.seg.base);
  EXPECT_EQ(out[1].hi, r.seg.base + 4096);  // not the whole segment: the other pointer bounds it
}

TEST(InferredBlocks, BoundariesEndWithTheirAllocation) {
  TraceBuilder b;
  const StreamId s1 = b.stream("s1", v1::ROLE_COMPUTE);
  const StreamId s2 = b.stream("s2", v1::ROLE_H2D);
  const Buffer host = b.pinned_buffer("host", 4096);
  const Buffer first = b.alloc("first", 1 << 20, v1::ORIGIN_CUDA_MALLOC);
  b.kernel(s1, "k", {}, {}, {.raw_words_only = true, .scalars = {first.base + 4096}});
  b.cuda_free(first);
  const Buffer second = b.alloc("second", 1 << 20, v1::ORIGIN_CUDA_MALLOC, {}, &first);
  ASSERT_EQ(second.base, first.base);
  b.kernel(s1, "k", {}, {}, {.raw_words_only = true, .scalars = {second.base}});  // [base, end) again
  b.memcpy(s2, second.slice(8192, 64), host.slice(0, 64));
  const race::CheckResult result = check_all(b.take());
  ASSERT_EQ(result.all.size(), 1u);
  EXPECT_EQ(result.all[0].first.access.hi, second.base + second.size);
}

// The evidence order: confidence, then anchored, then the finer extent.
TEST(EvidenceOrder, RanksConfidenceThenAnchorThenExtent) {
  using race::Evidence;
  const Evidence likely{Confidence::kLikely, false, v1::PRECISION_SEGMENT};
  const Evidence anchored{Confidence::kPossible, true, v1::PRECISION_SEGMENT};
  const Evidence inferred{Confidence::kPossible, false, v1::PRECISION_INFERRED};
  const Evidence segment{Confidence::kPossible, false, v1::PRECISION_SEGMENT};
  const std::vector<Evidence> order = {likely, anchored, inferred, segment};
  for (size_t i = 0; i < order.size(); ++i)
    for (size_t j = 0; j < order.size(); ++j) {
      EXPECT_EQ(race::stronger(order[i], order[j]), i < j) << i << " vs " << j;
    }
}

// Three groups below --min-confidence definite, found weakest first: the
// report lists them strongest first, and each group shows its strongest
// instance.
TEST(EvidenceOrder, NotShownGroupsAreListedStrongestFirst) {
  Raw r;
  r.kernel(r.s1, "unanchored", {r.seg.base});  // seq 1: [0, end)
  r.h2d(r.s2, 200000, 64);                     // seq 2: possible, unanchored vs seq 1
  r.kernel(r.s1, "no_writer", {r.seg.base + 300000});
  r.b.memcpy(r.s2, r.host.slice(0, 64), r.seg.slice(300000, 64));  // seq 4: D2H read, anchored, no writer
  r.h2d(r.s2, 400000, 64);
  r.kernel(r.s1, "anchored", {r.seg.base + 400000});  // seq 6: likely, anchored
  race::CheckOptions options;
  options.min_confidence = Confidence::kDefinite;
  const race::CheckResult result = race::check_trace(r.b.take(), options);
  const auto ranked = race::ranked_not_shown(result);
  std::vector<std::string> names;
  for (const race::HazardGroup* g : ranked) {
    const race::HazardSide& kernel =
        g->first.first.op_kind == OpKind::kKernel ? g->first.first : g->first.second;
    names.emplace_back(result.tables->string(kernel.name));
  }
  // Every group a kernel: "anchored" (likely), "no_writer" (possible,
  // anchored), then the unanchored ones.
  ASSERT_GE(names.size(), 3u);
  EXPECT_EQ(names[0], "anchored");
  EXPECT_EQ(names[1], "no_writer");
  EXPECT_EQ(ranked[0]->confidence, Confidence::kLikely);
  EXPECT_TRUE(ranked[1]->evidence.anchored);
  EXPECT_FALSE(ranked.back()->evidence.anchored);
  // The text lists them in that order too.
  race::ReportOptions report;
  report.min_confidence = Confidence::kDefinite;
  const std::string text = race::format_text(result, report);
  EXPECT_LT(text.find("kernel anchored"), text.find("kernel no_writer")) << text;
}

TEST(EvidenceOrder, AGroupShowsItsStrongestInstance) {
  Raw r;
  r.kernel(r.s1, "k", {r.seg.base});  // seq 1: [0, end)
  r.h2d(r.s2, 8192, 64);              // seq 2: unanchored against seq 1
  r.h2d(r.s2, 0, 64);                 // seq 3: anchored against seq 1, same signature
  const race::CheckResult result = race::check_trace(r.b.take(), race::CheckOptions{});
  ASSERT_EQ(result.groups.size(), 1u);
  EXPECT_EQ(result.groups[0].count, 2u);
  EXPECT_EQ(result.groups[0].first.second.seq, 3u);
  EXPECT_TRUE(result.groups[0].evidence.anchored);
  EXPECT_EQ(result.groups[0].confidence, Confidence::kLikely);
}

TEST(Report, OnlyPossibleHazardsNeverReadAsClean) {
  Raw r;
  r.b.memcpy(r.s2, r.host.slice(0, 64), r.seg.slice(0, 64));
  r.kernel(r.s1, "vectorized_elementwise_kernel", {r.seg.base});
  const race::CheckResult result = race::check_trace(r.b.take(), race::CheckOptions{});
  ASSERT_EQ(result.shown_groups(), 0u);
  ASSERT_EQ(result.by_confidence[static_cast<int>(Confidence::kPossible)], 1u);
  const std::string text = race::format_text(result, race::ReportOptions{});
  EXPECT_EQ(text.find("no hazard"), std::string::npos) << text;
  EXPECT_NE(text.find("not known to be clean"), std::string::npos) << text;
  EXPECT_NE(text.find("1 hazard(s) in 1 group(s)"), std::string::npos) << text;
  // What would settle it names the kernel's word and a rule for it.
  EXPECT_NE(text.find("argument word 1"), std::string::npos) << text;
  EXPECT_NE(text.find("vectorized_elementwise_kernel reads=1"), std::string::npos) << text;
  EXPECT_NE(text.find("pip install triton"), std::string::npos) << text;

  std::ostringstream json;
  race::write_json(json, result, race::ReportOptions{});
  EXPECT_NE(json.str().find("\"not_shown\": {\n    \"hazards\": 1,"), std::string::npos) << json.str();
}

TEST(Report, SuggestedRulePatternIsTheBaseName) {
  EXPECT_EQ(race::kernel_pattern("void at::native::vectorized_elementwise_kernel<4, at::native::Add>(int)"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(race::kernel_pattern("sm90_xmma_gemm_bf16_cublas"), "sm90_xmma_gemm_bf16_cublas");
  EXPECT_EQ(race::kernel_pattern("void flash::flash_fwd_kernel<T, false>(flash::Flash_fwd_params)"),
            "flash_fwd_kernel");
}

// The raw synth trace (bare CUPTI: argument words over cudaMalloc segments)
// with every shape injected: the copy- and memset-writing shapes are shown,
// C2 (a kernel of unknown mode writing a reused block) is among the ten
// strongest not shown. bench/raw_extents_bench scores the same at 10^6 ops.
TEST(RawSynth, CopyWritersShownAndC2AmongTheStrongestPossible) {
  testing::TempDir dir;
  SynthOptions options;
  options.seed = 1;
  options.target_ops = 10000;
  options.known_modes = false;
  for (HazardShape s :
       {HazardShape::kC1, HazardShape::kC2, HazardShape::kC3, HazardShape::kC4, HazardShape::kC5})
    options.inject[static_cast<int>(s)] = 1;  // the offload shapes this acceptance is about
  const std::string path = dir.path("raw_inject_all.rtrace");
  auto writer = TraceWriter::create(path);
  ASSERT_TRUE(writer.ok()) << writer.error().describe();
  auto truth = synthesize(options, *writer);
  ASSERT_TRUE(truth.ok()) << truth.error().describe();
  ASSERT_TRUE(writer->close().ok());
  ASSERT_EQ(truth->injected.size(), 5u);

  race::CheckOptions check;  // the default --min-confidence, every hazard kept
  check.keep_all = true;
  check.explain_and_fix = false;
  auto result = race::check_file(path, check);
  ASSERT_TRUE(result.ok()) << result.error().describe();
  const auto ranked = race::ranked_not_shown(*result);
  for (const InjectedHazard& i : truth->injected) {
    SCOPED_TRACE(std::string(shape_name(i.shape)) + " #" + std::to_string(i.first_seq) + " -> #" +
                 std::to_string(i.second_seq));
    auto hit = std::find_if(result->all.begin(), result->all.end(), [&](const race::Hazard& h) {
      return h.first.seq == i.first_seq && h.second.seq == i.second_seq;
    });
    ASSERT_NE(hit, result->all.end()) << "missed";
    const race::HazardGroup& group = result->groups[hit->group];
    if (i.shape == HazardShape::kC2) {
      EXPECT_EQ(hit->confidence, Confidence::kPossible);
      EXPECT_TRUE(hit->anchored);
      const auto at = std::find(ranked.begin(), ranked.end(), &group);
      ASSERT_NE(at, ranked.end());
      EXPECT_LT(at - ranked.begin(), 10) << "C2's group ranks " << at - ranked.begin() + 1;
    } else {
      EXPECT_GE(hit->confidence, Confidence::kLikely);
      EXPECT_TRUE(group.shown);
    }
  }
}

}  // namespace
}  // namespace racetrack::check_test
