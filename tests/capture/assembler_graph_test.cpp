// CUDA graphs in assembled traces: captured calls become node templates (no
// ops) between a capture's BEGIN and END ops, instantiation maps exec nodes
// to them, and each graph launch is one GraphLaunch op whose nodes come from
// the templates in dependency order, timed by the records that carry the
// launch's correlation id, naming the END of the capture they came from.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "assembler_test_support.h"

namespace racetrack::capture::testing {
namespace {

using racetrack::testing::TempDir;
using ::testing::ElementsAre;

constexpr uint64_t kGraphExec = 5;
constexpr uint64_t kNodeA = 4294967296, kNodeSet = 4294967297, kNodeB = 4294967298;
constexpr uint64_t kExecA = 8589934592, kExecSet = 8589934593, kExecB = 8589934594;

// Records a capture of: kernel A, a memset, kernel B, where B depends on A
// and the memset on B (so creation order is not dependency order), then an
// instantiation.
void capture_graph(FakeProgram& p, FakeStream s) {
  p.call(ApiKind::kCaptureBegin, s);
  p.launch(s, {0x10000, 1}, "", /*with_record=*/false);
  for (size_t i = p.events.size() - 2; i < p.events.size(); ++i)
    if (p.events[i].event.domain == ApiDomain::kDriver) p.events[i].event.graph_node = kNodeA;  // one half knows
  ApiEvent& set = p.call(ApiKind::kMemset, s);
  set.dst = 0x10000;
  set.bytes = 128;
  set.flags = kFlagAsync;
  set.graph_node = kNodeSet;
  p.launch(s, {0x10040}, "", /*with_record=*/false);
  for (size_t i = p.events.size() - 2; i < p.events.size(); ++i) p.events[i].event.graph_node = kNodeB;
  p.call(ApiKind::kCaptureEnd, s);
  for (auto [node, type] : {std::pair{kNodeA, 0u}, {kNodeSet, 2u}, {kNodeB, 0u}}) {
    ApiEvent& created = p.call(ApiKind::kGraphNodeCreated);
    created.handle = node;
    created.value = type;
  }
  for (auto [node, on] : {std::pair{kNodeB, kNodeA}, {kNodeSet, kNodeB}}) {
    ApiEvent& dep = p.call(ApiKind::kGraphDependency);
    dep.handle = node;
    dep.src = on;
  }
  for (auto [exec_node, node] : {std::pair{kExecA, kNodeA}, {kExecSet, kNodeSet}, {kExecB, kNodeB}}) {
    ApiEvent& cloned = p.call(ApiKind::kGraphNodeCloned);
    cloned.handle = exec_node;
    cloned.src = node;
    cloned.dst = kGraphExec;
  }
}

// A graph launch and the three records it produces.
uint64_t launch_graph(FakeProgram& p, FakeStream s, int64_t first_start) {
  ApiEvent& launch = p.call(ApiKind::kGraphLaunch, s);
  launch.handle = 0x6000;
  launch.value = static_cast<uint32_t>(kGraphExec);
  const uint64_t correlation = launch.correlation;
  int64_t start = first_start;
  for (auto [exec_node, name] : {std::pair{kExecA, "gA"}, {kExecB, "gB"}}) {
    KernelRecord k;
    k.correlation = static_cast<uint32_t>(correlation);
    k.context_id = kContext;
    k.stream_id = s.id;
    k.graph_id = static_cast<uint32_t>(kGraphExec);
    k.graph_node_id = exec_node;
    k.start = start;
    k.end = start + 1000;
    k.name = name;
    start += 3000;
    p.records.push_back(k);
  }
  MemsetRecord m;
  m.correlation = static_cast<uint32_t>(correlation);
  m.context_id = kContext;
  m.stream_id = s.id;
  m.graph_id = static_cast<uint32_t>(kGraphExec);
  m.graph_node_id = kExecSet;
  m.memory_kind = MemoryKind::kDevice;
  m.start = first_start + 500;
  m.end = first_start + 9000;
  p.records.push_back(m);
  return correlation;
}

TEST(AssemblerGraphs, ALaunchRunsTheCapturedNodesInDependencyOrder) {
  FakeProgram p;
  const FakeStream s = user_stream(0);
  p.alloc(ApiKind::kMalloc, 0x10000, 4096);  // every node touches it
  capture_graph(p, s);
  const uint64_t first = launch_graph(p, s, kStart + 1'000'000);
  launch_graph(p, s, kStart + 2'000'000);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"), 9);

  EXPECT_EQ(a.stats.graph_templates, 3u);
  ASSERT_EQ(a.trace.ops_size(), 5);  // alloc, capture begin and end, two launches
  EXPECT_EQ(a.trace.ops(1).capture().phase(), v1::CAPTURE_BEGIN);
  EXPECT_EQ(a.trace.ops(2).capture().phase(), v1::CAPTURE_END);
  EXPECT_EQ(a.trace.ops(2).stream(), a.trace.ops(1).stream());
  const v1::Op& op = a.trace.ops(3);
  EXPECT_EQ(op.graph().captured_seq(), a.trace.ops(2).seq());
  ASSERT_TRUE(op.has_graph());
  EXPECT_EQ(op.correlation_id(), first);
  EXPECT_EQ(op.graph().graph_id(), kGraphExec);
  EXPECT_EQ(op.device_start(), 1'000'000);
  EXPECT_EQ(op.device_end(), 1'009'000);
  const auto& nodes = op.graph().nodes();
  ASSERT_EQ(nodes.size(), 3);
  EXPECT_EQ(string_of(a.trace, nodes[0].kernel().name()), "gA");
  EXPECT_THAT(nodes[0].kernel().arg_words(), ElementsAre(0x10000u, 1u));
  EXPECT_TRUE(nodes[0].deps().empty());
  EXPECT_EQ(string_of(a.trace, nodes[1].kernel().name()), "gB");
  EXPECT_THAT(nodes[1].kernel().arg_words(), ElementsAre(0x10040u));
  EXPECT_THAT(nodes[1].deps(), ElementsAre(0u));
  ASSERT_TRUE(nodes[2].has_memset());
  EXPECT_EQ(nodes[2].memset().dst(), 0x10000u);
  EXPECT_EQ(nodes[2].memset().bytes(), 128u);
  EXPECT_THAT(nodes[2].deps(), ElementsAre(1u));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(nodes[i].index(), static_cast<uint32_t>(i));
  EXPECT_EQ(a.trace.ops(4).graph().nodes_size(), 3);
  EXPECT_EQ(a.trace.ops(4).device_start(), 2'000'000);
  EXPECT_EQ(a.trace.ops(4).graph().captured_seq(), a.trace.ops(2).seq());
  EXPECT_EQ(a.stats.ops_without_record, 0u);
  // The dependencies order the nodes: clean. Without them the memset races
  // the kernels.
  EXPECT_EQ(check(a.trace).hazards, 0u);
  std::erase_if(p.events, [](const LoggedEvent& e) { return e.event.kind == ApiKind::kGraphDependency; });
  const Assembled unordered = assemble(p, dir.path("unordered.rtrace"));
  EXPECT_GT(check(unordered.trace).hazards, 0u);
}

TEST(AssemblerGraphs, ALaunchWaitsForARecordPerNode) {
  FakeProgram p;
  const FakeStream s = user_stream(0);
  capture_graph(p, s);
  launch_graph(p, s, kStart + 1'000'000);
  TempDir dir;
  auto writer = TraceWriter::create(dir.path("t.rtrace"));
  ASSERT_TRUE(writer.ok());
  TraceAssembler assembler(*writer, {.header = test_header()});
  for (const LoggedEvent& e : p.events) assembler.add_api(e.event, e.payload);
  assembler.add_record(p.records[0]);
  assembler.add_record(p.records[2]);
  ASSERT_TRUE(assembler.advance(UINT64_MAX, p.now()).ok());
  EXPECT_EQ(assembler.stats().ops_written, 2u);  // the capture's begin and end
  assembler.add_record(p.records[1]);
  ASSERT_TRUE(assembler.advance(UINT64_MAX, p.now()).ok());
  EXPECT_EQ(assembler.stats().ops_written, 3u);
}

TEST(AssemblerGraphs, AnExecIdFromTheRecordsWhenTheCallDidNotKnowIt) {
  FakeProgram p;
  const FakeStream s = user_stream(0);
  capture_graph(p, s);
  launch_graph(p, s, kStart + 1'000'000);
  for (LoggedEvent& e : p.events)
    if (e.event.kind == ApiKind::kGraphLaunch) e.event.value = 0;
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"), 4);
  ASSERT_EQ(a.trace.ops_size(), 3);
  EXPECT_EQ(a.trace.ops(2).graph().graph_id(), kGraphExec);
  EXPECT_EQ(a.trace.ops(2).graph().nodes_size(), 3);
}

TEST(AssemblerGraphs, NodesNeverSeenCapturedKeepTheirPlace) {
  FakeProgram p;
  const FakeStream s = user_stream(0);
  capture_graph(p, s);
  ApiEvent& extra = p.call(ApiKind::kGraphNodeCloned);  // e.g. an empty node added by hand
  extra.handle = kExecB + 1;
  extra.src = kNodeB + 1;
  extra.dst = kGraphExec;
  ApiEvent& created = p.call(ApiKind::kGraphNodeCreated);
  created.handle = kNodeB + 1;
  created.value = 5;  // CU_GRAPH_NODE_TYPE_EMPTY: no record to wait for
  launch_graph(p, s, kStart + 1'000'000);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 3);
  const auto& nodes = a.trace.ops(2).graph().nodes();
  ASSERT_EQ(nodes.size(), 4);
  EXPECT_EQ(a.stats.ops_without_record, 0u);
  int empty = 0;
  for (const v1::GraphNode& n : nodes) empty += !n.has_kernel() && !n.has_memcpy() && !n.has_memset();
  EXPECT_EQ(empty, 1);
}

// cudaStreamEndCapture fails when a forked stream was not joined
// (cudaErrorStreamCaptureUnjoined), and the capture still ends: the END op
// is written, so later work on the stream is not taken for captured work.
TEST(AssemblerGraphs, AFailedEndCaptureStillEndsTheCapture) {
  FakeProgram p;
  const FakeStream s = user_stream(0);
  p.call(ApiKind::kCaptureBegin, s);
  p.call(ApiKind::kCaptureEnd, s).result = 904;  // cudaErrorStreamCaptureUnjoined
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 2);
  EXPECT_EQ(a.trace.ops(1).capture().phase(), v1::CAPTURE_END);
  EXPECT_EQ(a.stats.failed_calls, 1u);
}

// A launch of a graph whose capture the trace did not see names none.
TEST(AssemblerGraphs, ALaunchOfAnUnseenCaptureNamesNoCapture) {
  FakeProgram p;
  const FakeStream s = user_stream(0);
  capture_graph(p, s);
  std::erase_if(p.events, [](const LoggedEvent& e) {
    return e.event.kind == ApiKind::kCaptureBegin || e.event.kind == ApiKind::kCaptureEnd;
  });
  launch_graph(p, s, kStart + 1'000'000);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 1);
  EXPECT_EQ(a.trace.ops(0).graph().captured_seq(), 0u);
}

}  // namespace
}  // namespace racetrack::capture::testing
