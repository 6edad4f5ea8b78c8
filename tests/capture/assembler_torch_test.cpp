// The PyTorch integration's messages (capture/python) as the assembler
// reads them: operator ranges give their kernels exact extents and known
// modes, including the outputs marked after the kernels were launched;
// allocator blocks become stream-ordered regions; stacks reach the report.
#include <gtest/gtest.h>

#include "assembler_test_support.h"
#include "racetrack/race/report.h"

namespace racetrack::capture::testing {
namespace {

using racetrack::testing::TempDir;

constexpr uint64_t kSegment = 0x7f0000000000, kSegmentBytes = 2 << 20;
constexpr uint64_t kInput = kSegment, kOutput = kSegment + 0x1000, kPinned = 0x90000, kBytes = 4096;

std::string item(const char* mode, uint64_t address, uint64_t bytes = kBytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%s:0x%llx:%llu", mode, static_cast<unsigned long long>(address),
                static_cast<unsigned long long>(bytes));
  return text;
}

std::string block(const char* verb, uint64_t address, const FakeStream& s) {
  char text[96];
  std::snprintf(text, sizeof text, "racetrack:%s 0x%llx:%llu s=0x%llx", verb,
                static_cast<unsigned long long>(address), static_cast<unsigned long long>(kBytes),
                static_cast<unsigned long long>(s.handle));
  return text;
}

// The op range's "s=0x<stream>" item.
std::string stream_item(const FakeStream& s) {
  char text[32];
  std::snprintf(text, sizeof text, "s=0x%llx", static_cast<unsigned long long>(s.handle));
  return text;
}

// One ATen operator the way racetrack_torch traces it: the range with the
// inputs, the kernel, then (after the operator returned) the fresh output's
// block, the outputs and the stack.
uint64_t aten_op(FakeProgram& p, const FakeStream& s, const std::string& name, const std::string& inputs,
                 uint64_t fresh_output, const std::string& stack = "") {
  p.nvtx(ApiKind::kNvtxPush, "racetrack:op " + name + " " + stream_item(s) + " " + inputs);
  const uint64_t launch = p.launch(s, {kInput, kOutput}, name + "_kernel");
  if (fresh_output != 0) {
    p.nvtx(ApiKind::kNvtxMark, block("block-alloc", fresh_output, s));
    p.nvtx(ApiKind::kNvtxMark, "racetrack:op-out " + item("w", fresh_output));
  }
  if (!stack.empty()) p.nvtx(ApiKind::kNvtxMark, "racetrack:stack " + stack);
  p.nvtx(ApiKind::kNvtxPop);
  return launch;
}

const v1::Op& op_with_correlation(const v1::Chunk& trace, uint64_t correlation) {
  for (const v1::Op& op : trace.ops())
    if (op.correlation_id() == correlation) return op;
  ADD_FAILURE() << "no op for correlation " << correlation;
  return trace.ops(0);
}

FakeStream set_up(FakeProgram& p) {
  const FakeStream compute = user_stream(0);
  p.alloc(ApiKind::kMalloc, kSegment, kSegmentBytes);  // a caching-allocator segment
  p.alloc(ApiKind::kHostAlloc, kPinned, kBytes);
  p.call(ApiKind::kStreamCreate, compute).value = 1;
  p.nvtx(ApiKind::kNvtxMark, block("block-alloc", kInput, compute));
  return compute;
}

TEST(AssemblerTorch, OperatorKernelsGetExactExtentsIncludingLateOutputs) {
  for (uint64_t seed : {uint64_t{0}, uint64_t{3}, kRecordsFirst}) {
    FakeProgram p;
    const FakeStream compute = set_up(p);
    const uint64_t launch =
        aten_op(p, compute, "aten::relu", item("r", kInput), kOutput, "train.py:12 forward <- train.py:40 step");
    TempDir dir;
    const Assembled a = assemble(p, dir.path("t.rtrace"), seed);
    const v1::Op& kernel = op_with_correlation(a.trace, launch);
    ASSERT_EQ(kernel.kernel().accesses_size(), 2) << "seed " << seed;
    const v1::Access& in = kernel.kernel().accesses(0);
    const v1::Access& out = kernel.kernel().accesses(1);
    EXPECT_EQ(in.mode(), v1::MODE_READ);
    EXPECT_EQ(out.mode(), v1::MODE_WRITE);
    EXPECT_EQ(out.size(), kBytes);
    // The output resolves to its block, whose Alloc is written before the kernel.
    const v1::Region* output_block = nullptr;
    for (const v1::Region& r : a.trace.regions())
      if (r.base() == kOutput && r.origin() == v1::ORIGIN_FRAMEWORK_BLOCK) output_block = &r;
    ASSERT_NE(output_block, nullptr);
    EXPECT_EQ(out.region(), output_block->id());
    EXPECT_LT(output_block->alloc_seq(), kernel.seq());
    // The block belongs to the operator's stream (named by handle in the mark).
    for (const v1::Op* alloc : ops_of(a.trace, v1::Op::kAlloc))
      if (alloc->alloc().region() == output_block->id()) {
        EXPECT_EQ(alloc->stream(), kernel.stream());
      }
    EXPECT_EQ(a.trace.strings(kernel.stack() - 1), "train.py:12 forward <- train.py:40 step");
    EXPECT_EQ(a.trace.strings(kernel.nvtx() - 1), "aten::relu");
    // op-out, stack and block marks are consumed, not left as marks.
    EXPECT_TRUE(ops_of(a.trace, v1::Op::kAnnotation).empty());
  }
}

// An offload copy reads an activation while the next operator also reads it:
// the normal overlap. With operator records the kernel's read is known and
// nothing is reported; with raw argument words only it is a possible hazard.
TEST(AssemblerTorch, ReadReadOverlapIsQuietOnlyWithOperatorRecords) {
  for (bool with_ops : {true, false}) {
    FakeProgram p;
    const FakeStream compute = set_up(p);
    const FakeStream offload = user_stream(1);
    p.call(ApiKind::kStreamCreate, offload).value = 1;
    p.memcpy(offload, kPinned, kInput, kBytes, 2, MemoryKind::kPinned, MemoryKind::kDevice);
    if (with_ops)
      aten_op(p, compute, "aten::gelu", item("r", kInput), 0);
    else
      p.launch(compute, {kInput}, "gelu_kernel");
    TempDir dir;
    const race::CheckResult result = check(assemble(p, dir.path("t.rtrace"), 9).trace);
    if (with_ops) {
      EXPECT_EQ(result.all.size(), 0u);
    } else {
      ASSERT_EQ(result.all.size(), 1u);
      EXPECT_EQ(result.all[0].confidence, race::Confidence::kPossible);
    }
  }
}

// The in-place update of an activation still being offloaded: a definite
// hazard naming the operator and its stack; waiting for the offload fixes it.
TEST(AssemblerTorch, InPlaceOperatorRacingAnOffloadIsDefiniteAndNamed) {
  for (bool waits : {false, true}) {
    FakeProgram p;
    const FakeStream compute = set_up(p);
    const FakeStream offload = user_stream(1);
    p.call(ApiKind::kStreamCreate, offload).value = 1;
    p.memcpy(offload, kPinned, kInput, kBytes, 2, MemoryKind::kPinned, MemoryKind::kDevice);
    p.event_record(offload, 0xE0, 1);
    if (waits) p.stream_wait(compute, 0xE0, 1);
    const uint64_t add = aten_op(p, compute, "aten::add_.Tensor", item("rw", kInput), 0, "model.py:7 forward");
    TempDir dir;
    const Assembled a = assemble(p, dir.path("t.rtrace"), 4);
    const race::CheckResult result = check(a.trace);
    if (waits) {
      EXPECT_EQ(result.all.size(), 0u);
      continue;
    }
    ASSERT_EQ(result.all.size(), 1u);
    const race::Hazard& h = result.all[0];
    EXPECT_EQ(h.confidence, race::Confidence::kDefinite);
    EXPECT_EQ(h.kind, race::HazardKind::kWar);
    EXPECT_EQ(h.second.seq, op_with_correlation(a.trace, add).seq());
    race::CheckOptions explained;
    explained.keep_all = true;
    const std::string text = race::format_text(race::check_trace(a.trace, explained), {});
    EXPECT_NE(text.find("aten::add_.Tensor"), std::string::npos) << text;
    EXPECT_NE(text.find("stack model.py:7 forward"), std::string::npos) << text;
  }
}

// A block freed and handed out again on its stream: the new tensor's writer
// is stream-ordered after the old one's readers on that stream, but not after
// a side stream that still reads the old tensor.
TEST(AssemblerTorch, BlockReuseOnItsStreamIsOrderedButNotForASideStream) {
  FakeProgram p;
  const FakeStream compute = set_up(p);
  const FakeStream side = user_stream(1);
  p.call(ApiKind::kStreamCreate, side).value = 1;
  aten_op(p, compute, "aten::neg", item("r", kInput), 0);
  p.memcpy(side, kPinned, kInput, kBytes, 2, MemoryKind::kPinned, MemoryKind::kDevice);
  p.nvtx(ApiKind::kNvtxMark, block("block-free", kInput, compute));
  p.nvtx(ApiKind::kNvtxMark, block("block-alloc", kInput, compute));
  aten_op(p, compute, "aten::fill_.Scalar", item("w", kInput), 0);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"), 2);
  EXPECT_EQ(ops_of(a.trace, v1::Op::kFree).size(), 1u);
  const race::CheckResult result = check(a.trace);
  ASSERT_EQ(result.all.size(), 1u);
  EXPECT_EQ(result.all[0].cls, race::HazardClass::kReuse);
  EXPECT_EQ(result.all[0].first.op_kind, OpKind::kMemcpy);
}

TEST(AssemblerTorch, AKernelWaitsForItsOperatorsRangeToClose) {
  FakeProgram p;
  const FakeStream compute = set_up(p);
  p.nvtx(ApiKind::kNvtxPush, "racetrack:op aten::exp " + item("r", kInput));
  p.launch(compute, {kInput}, "exp_kernel");
  // The range never closes (the process died inside the operator): the
  // kernel is still written at the end, with what is known.
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"), 1);
  ASSERT_EQ(ops_of(a.trace, v1::Op::kKernel).size(), 1u);
  EXPECT_EQ(ops_of(a.trace, v1::Op::kKernel)[0]->kernel().accesses_size(), 1);
}

TEST(AssemblerTorch, StrayOperatorMarksAndUnknownBlockFreesAreReported) {
  FakeProgram p;
  const FakeStream compute = set_up(p);
  p.nvtx(ApiKind::kNvtxMark, "racetrack:op-out " + item("w", kOutput));
  p.nvtx(ApiKind::kNvtxMark, block("block-free", kOutput, compute));
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto marks = ops_of(a.trace, v1::Op::kAnnotation);
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_NE(a.trace.strings(marks[0]->annotation().text() - 1).find("outside a racetrack:op range"),
            std::string::npos);
  EXPECT_EQ(a.stats.unknown_frees, 1u);
}

// A c10d collective as racetrack_torch traces it (docs/distributed.md): its
// range, opened on the current stream, holds the NCCL kernel launched on the
// communication stream, which gets the buffer's exact extent read and
// written. Work.wait() is the event record and stream wait CUPTI sees: with
// it, a compute kernel reading the result is ordered; without it, check
// reports a definite communication hazard.
TEST(AssemblerTorch, ACollectivesRangeGivesItsNcclKernelTheBuffer) {
  for (bool waited : {true, false}) {
    FakeProgram p;
    const FakeStream compute = set_up(p);
    const FakeStream comm = user_stream(1);
    p.call(ApiKind::kStreamCreate, comm).value = 1;
    p.nvtx(ApiKind::kNvtxPush, "racetrack:op c10d::allreduce_ " + stream_item(compute) + " " + item("rw", kInput));
    const uint64_t nccl = p.launch(comm, {0xA000}, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    p.nvtx(ApiKind::kNvtxPop);
    if (waited) {
      p.event_record(comm, 0xE5, 1);
      p.stream_wait(compute, 0xE5, 1);
    }
    const uint64_t reader = aten_op(p, compute, "aten::relu", item("r", kInput), 0);
    TempDir dir;
    const Assembled a = assemble(p, dir.path("t.rtrace"), 0);
    const v1::Op& kernel = op_with_correlation(a.trace, nccl);
    ASSERT_EQ(kernel.kernel().accesses_size(), 1);
    EXPECT_EQ(kernel.kernel().accesses(0).mode(), v1::MODE_READ_WRITE);
    EXPECT_EQ(kernel.kernel().accesses(0).size(), kBytes);
    const race::CheckResult r = check(a.trace);
    if (waited) {
      EXPECT_EQ(r.hazards, 0u) << "work.wait() orders the reader";
      continue;
    }
    ASSERT_EQ(r.all.size(), 1u);
    const race::Hazard& h = r.all.front();
    EXPECT_EQ(h.first.seq, kernel.seq());
    EXPECT_EQ(h.second.seq, op_with_correlation(a.trace, reader).seq());
    EXPECT_EQ(h.kind, race::HazardKind::kRaw);
    EXPECT_EQ(h.cls, race::HazardClass::kCommunication);
    EXPECT_EQ(h.confidence, race::Confidence::kDefinite);
  }
}

}  // namespace
}  // namespace racetrack::capture::testing
