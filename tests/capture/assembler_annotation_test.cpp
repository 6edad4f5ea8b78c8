// NVTX and racetrack annotations in assembled traces: range paths on ops,
// kernel accesses from marks and op ranges, host accesses, labels, and marks
// (malformed annotations included) as ANNOTATE_MARK ops.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "assembler_test_support.h"

namespace racetrack::capture::testing {
namespace {

using racetrack::testing::TempDir;
using ::testing::HasSubstr;

TEST(AssemblerAnnotations, OpsCarryTheirThreadsRangePath) {
  FakeProgram p;
  p.nvtx(ApiKind::kNvtxPush, "fwd");
  p.nvtx(ApiKind::kNvtxPush, "layer1");
  p.launch(kLegacy, {});
  p.tid = kMainThread + 1;  // another thread has its own stack
  p.launch(kLegacy, {});
  p.tid = kMainThread;
  p.nvtx(ApiKind::kNvtxPop);
  p.launch(kLegacy, {});
  p.nvtx(ApiKind::kNvtxPop);
  p.nvtx(ApiKind::kNvtxPop);  // one pop too many: ignored
  p.launch(kLegacy, {});
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 4);
  EXPECT_EQ(string_of(a.trace, a.trace.ops(0).nvtx()), "fwd/layer1");
  EXPECT_EQ(a.trace.ops(1).nvtx(), 0u);
  EXPECT_EQ(string_of(a.trace, a.trace.ops(2).nvtx()), "fwd");
  EXPECT_EQ(a.trace.ops(3).nvtx(), 0u);
}

TEST(AssemblerAnnotations, KernelMarksDescribeTheThreadsNextLaunch) {
  FakeProgram p;
  p.alloc(ApiKind::kMalloc, 0x10000, 4096);
  p.nvtx(ApiKind::kNvtxMark, "racetrack:kernel r:0x10000:64 w:0x10040:64");
  p.nvtx(ApiKind::kNvtxMark, "racetrack:kernel rw:0x99000:8 u:0x10080:4");
  p.tid = kMainThread + 1;
  p.launch(kLegacy, {0x10000});  // another thread's launch
  p.tid = kMainThread;
  p.launch(kLegacy, {0x10000});
  p.launch(kLegacy, {0x10000});  // the marks were used up
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto kernels = ops_of(a.trace, v1::Op::kKernel);
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(kernels[0]->kernel().accesses_size(), 0);
  const auto& accesses = kernels[1]->kernel().accesses();
  ASSERT_EQ(accesses.size(), 4);
  const uint32_t region = a.trace.ops(0).alloc().region();
  EXPECT_EQ(accesses[0].region(), region);
  EXPECT_EQ(accesses[0].offset(), 0u);
  EXPECT_EQ(accesses[0].size(), 64u);
  EXPECT_EQ(accesses[0].mode(), v1::MODE_READ);
  EXPECT_EQ(accesses[0].precision(), v1::PRECISION_EXACT);
  EXPECT_EQ(accesses[1].offset(), 0x40u);
  EXPECT_EQ(accesses[1].mode(), v1::MODE_WRITE);
  EXPECT_EQ(accesses[2].region(), 0u);  // no region holds it: by address
  EXPECT_EQ(accesses[2].address(), 0x99000u);
  EXPECT_EQ(accesses[2].mode(), v1::MODE_READ_WRITE);
  EXPECT_EQ(accesses[3].mode(), v1::MODE_UNKNOWN);
  EXPECT_EQ(kernels[2]->kernel().accesses_size(), 0);
  EXPECT_EQ(ops_of(a.trace, v1::Op::kAnnotation).size(), 0u);  // marks used, not shown
}

TEST(AssemblerAnnotations, OpRangesGiveEveryLaunchInsideThemTheirAccesses) {
  FakeProgram p;
  p.nvtx(ApiKind::kNvtxPush, "step");
  p.nvtx(ApiKind::kNvtxPush, "racetrack:op attention r:0x10000:128 w:0x20000:64");
  p.launch(kLegacy, {});
  p.nvtx(ApiKind::kNvtxMark, "racetrack:kernel w:0x30000:8");
  p.launch(kLegacy, {});
  p.nvtx(ApiKind::kNvtxPop);
  p.launch(kLegacy, {});
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto kernels = ops_of(a.trace, v1::Op::kKernel);
  ASSERT_EQ(kernels.size(), 3u);
  EXPECT_EQ(string_of(a.trace, kernels[0]->nvtx()), "step/attention");
  ASSERT_EQ(kernels[0]->kernel().accesses_size(), 2);
  EXPECT_EQ(kernels[0]->kernel().accesses(1).address(), 0x20000u);
  ASSERT_EQ(kernels[1]->kernel().accesses_size(), 3);
  EXPECT_EQ(kernels[1]->kernel().accesses(0).address(), 0x30000u);
  EXPECT_EQ(kernels[2]->kernel().accesses_size(), 0);
  EXPECT_EQ(string_of(a.trace, kernels[2]->nvtx()), "step");
}

TEST(AssemblerAnnotations, HostMarksAreHostAccessOps) {
  FakeProgram p;
  p.alloc(ApiKind::kHostAlloc, 0x90000, 4096);
  p.nvtx(ApiKind::kNvtxPush, "drain");
  p.nvtx(ApiKind::kNvtxMark, "racetrack:host r:0x90010:16 w:0x5000:4");
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto host = ops_of(a.trace, v1::Op::kHostAccess);
  ASSERT_EQ(host.size(), 1u);
  EXPECT_EQ(host[0]->stream(), 0u);
  EXPECT_EQ(string_of(a.trace, host[0]->nvtx()), "drain");
  const auto& accesses = host[0]->host_access().accesses();
  ASSERT_EQ(accesses.size(), 2);
  EXPECT_EQ(accesses[0].region(), a.trace.ops(0).alloc().region());
  EXPECT_EQ(accesses[0].offset(), 0x10u);
  EXPECT_EQ(accesses[0].mode(), v1::MODE_READ);
  EXPECT_EQ(accesses[1].address(), 0x5000u);
  EXPECT_EQ(accesses[1].mode(), v1::MODE_WRITE);
}

TEST(AssemblerAnnotations, LabelsNameRegions) {
  FakeProgram p;
  p.alloc(ApiKind::kMalloc, 0x10000, 4096);
  p.nvtx(ApiKind::kNvtxMark, "racetrack:label 0x10000:4096 activations 3");  // written by then
  p.nvtx(ApiKind::kNvtxMark, "racetrack:label 0x10100:256 tensor in a segment");
  p.nvtx(ApiKind::kNvtxMark, "racetrack:label 0x7ffd0000:64 stack buffer");
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto labels = ops_of(a.trace, v1::Op::kAnnotation);
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(labels[0]->annotation().kind(), v1::ANNOTATE_LABEL_REGION);
  EXPECT_EQ(labels[0]->annotation().region(), a.trace.ops(0).alloc().region());
  EXPECT_EQ(string_of(a.trace, labels[0]->annotation().text()), "activations 3");
  ASSERT_EQ(a.trace.regions_size(), 3);
  const v1::Region& tensor = a.trace.regions(1);
  EXPECT_EQ(tensor.origin(), v1::ORIGIN_ANNOTATION);
  EXPECT_EQ(tensor.space(), v1::SPACE_DEVICE);
  EXPECT_EQ(tensor.base(), 0x10100u);
  EXPECT_EQ(tensor.size(), 256u);
  EXPECT_EQ(string_of(a.trace, tensor.label()), "tensor in a segment");
  const v1::Region& unknown = a.trace.regions(2);
  EXPECT_EQ(unknown.origin(), v1::ORIGIN_ANNOTATION);
  EXPECT_EQ(unknown.space(), v1::SPACE_PAGEABLE_HOST);
  EXPECT_EQ(unknown.alloc_seq(), 0u);
  EXPECT_EQ(string_of(a.trace, unknown.label()), "stack buffer");
}

TEST(AssemblerAnnotations, ALabelOfAnUnwrittenRegionIsSetInPlace) {
  TempDir dir;
  const std::string path = dir.path("t.rtrace");
  auto writer = TraceWriter::create(path);
  ASSERT_TRUE(writer.ok());
  TraceAssembler assembler(*writer, {.header = test_header()});
  FakeProgram p;
  p.alloc(ApiKind::kHostAlloc, 0x90000, 4096);
  p.nvtx(ApiKind::kNvtxMark, "racetrack:label 0x90000:4096 pinned staging");
  for (const LoggedEvent& e : p.events) assembler.add_api(e.event, e.payload);
  ASSERT_TRUE(assembler.finish().ok());
  ASSERT_TRUE(writer->close().ok());
  auto trace = load_trace(path);
  ASSERT_TRUE(trace.ok());
  ASSERT_EQ(trace->ops_size(), 1);
  ASSERT_EQ(trace->regions_size(), 1);
  EXPECT_EQ(string_of(*trace, trace->regions(0).label()), "pinned staging");
}

TEST(AssemblerAnnotations, OtherMarksAndMalformedAnnotationsAreMarks) {
  FakeProgram p;
  p.nvtx(ApiKind::kNvtxMark, "checkpoint saved");
  p.nvtx(ApiKind::kNvtxMark, "racetrack:kernel r:0x10:4 q:0x20:4");
  p.nvtx(ApiKind::kNvtxMark, "racetrack:op fwd r:0x10:4");
  p.nvtx(ApiKind::kNvtxPush, "racetrack:kernel w:0x10:0");
  p.launch(kLegacy, {});
  p.nvtx(ApiKind::kNvtxPop);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto marks = ops_of(a.trace, v1::Op::kAnnotation);
  ASSERT_EQ(marks.size(), 4u);
  for (const v1::Op* m : marks) {
    EXPECT_EQ(m->annotation().kind(), v1::ANNOTATE_MARK);
    EXPECT_EQ(m->stream(), 0u);
    EXPECT_EQ(m->thread(), 1u);
  }
  EXPECT_EQ(string_of(a.trace, marks[0]->annotation().text()), "checkpoint saved");
  EXPECT_THAT(string_of(a.trace, marks[1]->annotation().text()), HasSubstr("item 2 'q:0x20:4'"));
  EXPECT_THAT(string_of(a.trace, marks[2]->annotation().text()), HasSubstr("racetrack:op is a range"));
  EXPECT_THAT(string_of(a.trace, marks[3]->annotation().text()), HasSubstr("0 bytes"));
  const auto kernels = ops_of(a.trace, v1::Op::kKernel);
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0]->kernel().accesses_size(), 0);  // the bad mark gave nothing
  EXPECT_EQ(string_of(a.trace, kernels[0]->nvtx()), "racetrack:kernel w:0x10:0");
}

// C14: an external access mark becomes an EXTERNAL_ACCESS annotation op on
// the trace's region, its done event resolved from the handle; the host's
// observation an EXTERNAL_DONE op.
TEST(AssemblerAnnotations, ExternalAccessMarksAreExternalAccessOps) {
  FakeProgram p;
  p.alloc(ApiKind::kMalloc, 0x10000, 4096);
  const FakeStream connector = user_stream(0), compute = user_stream(1);
  p.nvtx(ApiKind::kNvtxMark, "racetrack:external nixl_rdma w:0x10000:64 e=0xe1");
  p.event_record(connector, 0xe1, 1);
  p.launch(compute, {0x10000});
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto notes = ops_of(a.trace, v1::Op::kAnnotation);
  ASSERT_EQ(notes.size(), 1u);
  const v1::Annotation& note = notes[0]->annotation();
  EXPECT_EQ(note.kind(), v1::ANNOTATE_EXTERNAL_ACCESS);
  EXPECT_EQ(string_of(a.trace, note.agent()), "nixl_rdma");
  EXPECT_EQ(note.access().region(), a.trace.ops(0).alloc().region());
  EXPECT_EQ(note.access().size(), 64u);
  EXPECT_EQ(note.access().mode(), v1::MODE_WRITE);
  const auto records = ops_of(a.trace, v1::Op::kRecord);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(note.done_event(), records[0]->record().event());
  p.nvtx(ApiKind::kNvtxMark, "racetrack:external-done nixl_rdma");
  const Assembled done = assemble(p, dir.path("done.rtrace"));
  const auto all = ops_of(done.trace, v1::Op::kAnnotation);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1]->annotation().kind(), v1::ANNOTATE_EXTERNAL_DONE);
}

}  // namespace
}  // namespace racetrack::capture::testing
