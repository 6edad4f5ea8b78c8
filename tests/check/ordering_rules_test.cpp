// The ordering rules of docs/ordering-rules.md, one test each: with the rule's
// synchronisation the pair is ordered (no hazard); without it, exactly the
// expected hazard, whose suggested fix makes the trace check clean. Then
// confidence, kernel argument-word resolution, --kernel-modes and reuse.
#include <gtest/gtest.h>

#include <vector>

#include "check_test_support.h"
#include "racetrack/race/access.h"
#include "racetrack/traces/builder.h"
#include "racetrack/traces/trace_io.h"
#include "test_support.h"

namespace racetrack::check_test {
namespace {

using race::Confidence;
using race::HazardClass;
using race::HazardKind;
using racetrack::testing::TempDir;

constexpr HazardKind kRaw = HazardKind::kRaw;
constexpr HazardKind kWar = HazardKind::kWar;
constexpr HazardKind kWaw = HazardKind::kWaw;
constexpr HazardClass kCompute = HazardClass::kComputeVsCompute;
constexpr HazardClass kCopyCompute = HazardClass::kCopyVsCompute;
constexpr HazardClass kCopyCopy = HazardClass::kCopyVsCopy;
constexpr HazardClass kHost = HazardClass::kHostVsDevice;
constexpr HazardClass kReuse = HazardClass::kReuse;

// The negative half of a rule test: exactly `expected`, and the suggested
// fixes order every pair.
void expect_race_fixed(const v1::Chunk& trace, const std::vector<Expected>& expected) {
  expect_hazards(trace, expected);
  expect_fixes_clean(trace);
}

// A graph launch node: kernel accesses and the indices it depends on.
struct Node {
  std::vector<Span> reads, writes;
  std::vector<uint32_t> deps;
};

// The builder has no graph call: turn a mark into a launch of kernel nodes.
void launch_graph(TraceBuilder& b, StreamId s, const std::vector<Node>& nodes) {
  b.mark("graph");
  v1::Op& op = b.last_op();
  op.set_stream(s.id);
  v1::GraphLaunch& g = *op.mutable_graph();
  g.set_graph_id(1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    v1::GraphNode& n = *g.add_nodes();
    n.set_index(static_cast<uint32_t>(i));
    for (uint32_t dep : nodes[i].deps) n.add_deps(dep);
    v1::Kernel& k = *n.mutable_kernel();
    auto add = [&](const Span& span, v1::AccessMode mode) {
      v1::Access& a = *k.add_accesses();
      a.set_region(span.region);
      a.set_offset(span.offset);
      a.set_size(span.size);
      a.set_mode(mode);
    };
    for (const Span& r : nodes[i].reads) add(r, v1::MODE_READ);
    for (const Span& w : nodes[i].writes) add(w, v1::MODE_WRITE);
  }
}

// Two non-blocking streams, two device buffers and a pinned one.
struct Fixture {
  TraceBuilder b;
  StreamId s1 = b.stream("s1", v1::ROLE_COMPUTE);
  StreamId s2 = b.stream("s2", v1::ROLE_OTHER);
  Buffer x = b.device_buffer("X", 4096);
  Buffer y = b.device_buffer("Y", 4096);
  Buffer p = b.pinned_buffer("P", 4096);
};

// Rule 1.
TEST(StreamOrder, OrdersOpsOfOneStream) {
  Fixture f;
  f.b.kernel(f.s1, "produce", {}, {f.x});
  f.b.kernel(f.s1, "consume", {f.x}, {});
  expect_clean(f.b.take());
}

TEST(StreamOrder, DoesNotOrderTwoStreams) {
  Fixture f;
  f.b.kernel(f.s1, "produce", {}, {f.x});
  f.b.kernel(f.s2, "consume", {f.x}, {});
  expect_race_fixed(f.b.take(), {{1, 2, kRaw, kCompute}});
}

// Rules 2 and 3.
TEST(HostOrder, HostWriteBeforeEnqueueIsOrdered) {
  Fixture f;
  f.b.host_write(f.p);
  f.b.host_read(f.p);  // program order on one thread
  f.b.memcpy(f.s1, f.x, f.p);
  expect_clean(f.b.take());
}

TEST(HostOrder, HostReadAfterEnqueueIsNotOrdered) {
  Fixture f;
  f.b.kernel(f.s1, "fill", {}, {f.p});  // zero-copy write of pinned memory
  f.b.host_read(f.p);
  expect_race_fixed(f.b.take(), {{1, 2, kRaw, kHost}});
}

// Rule 4.
TEST(EventRecord, CoversWhatWasRecordedBefore) {
  Fixture f;
  auto e = f.b.event("e");
  f.b.kernel(f.s1, "produce", {}, {f.x});
  f.b.record(e, f.s1);
  f.b.wait(f.s2, e);
  f.b.kernel(f.s2, "consume", {f.x}, {});
  expect_clean(f.b.take());
}

TEST(EventRecord, DoesNotCoverOpsAfterTheRecord) {
  Fixture f;
  auto e = f.b.event("e");
  f.b.record(e, f.s1);
  f.b.kernel(f.s1, "produce", {}, {f.x});
  f.b.wait(f.s2, e);
  f.b.kernel(f.s2, "consume", {f.x}, {});
  expect_race_fixed(f.b.take(), {{2, 4, kRaw, kCompute}});
}

// Rules 4 and 5: a wait binds to the generation current when it is issued.
TEST(EventGeneration, WaitAfterTheSecondRecordSeesBoth) {
  Fixture f;
  auto e = f.b.event("e");
  f.b.kernel(f.s1, "k1", {}, {f.x});
  f.b.record(e, f.s1);
  f.b.kernel(f.s1, "k2", {}, {f.y});
  f.b.record(e, f.s1);
  f.b.wait(f.s2, e);
  f.b.kernel(f.s2, "consume", {f.x, f.y}, {});
  expect_clean(f.b.take());
}

// Captured traces name the record each wait bound to (cudaEventSyncId):
// when host threads raced, that can be an earlier record than the last one
// in submission order.
TEST(EventGeneration, ASyncIdBindsTheRecordItNames) {
  Fixture f;
  auto e = f.b.event("e");
  f.b.kernel(f.s1, "k1", {}, {f.x});
  f.b.record(e, f.s1);
  f.b.kernel(f.s1, "k2", {}, {f.y});
  f.b.record(e, f.s1);
  f.b.wait(f.s2, e);
  f.b.kernel(f.s2, "consume", {f.x, f.y}, {});
  v1::Chunk trace = f.b.take();
  trace.mutable_ops(1)->mutable_record()->set_sync_id(11);
  trace.mutable_ops(3)->mutable_record()->set_sync_id(12);
  v1::Chunk latest = trace;
  latest.mutable_ops(4)->mutable_wait()->set_sync_id(12);
  expect_clean(latest);
  trace.mutable_ops(4)->mutable_wait()->set_sync_id(11);
  expect_race_fixed(trace, {{3, 6, kRaw, kCompute, 0, 1}});  // Y, not X
}

TEST(EventGeneration, WaitBetweenRecordsBindsTheFirst) {
  Fixture f;
  auto e = f.b.event("e");
  f.b.kernel(f.s1, "k1", {}, {f.x});
  f.b.record(e, f.s1);
  f.b.wait(f.s2, e);
  f.b.kernel(f.s1, "k2", {}, {f.y});
  f.b.record(e, f.s1);  // too late for the wait above
  f.b.kernel(f.s2, "consume", {f.x, f.y}, {});
  expect_race_fixed(f.b.take(), {{4, 6, kRaw, kCompute, 0, 1}});  // Y, not X
}

// Rule 5 (the same wait after the record orders: EventRecord.CoversWhatWasRecordedBefore).
TEST(WaitNeverRecorded, IsANoOp) {
  Fixture f;
  auto e = f.b.event("e");
  f.b.kernel(f.s1, "produce", {}, {f.x});
  f.b.wait(f.s2, e);  // e has never been recorded
  f.b.record(e, f.s1);
  f.b.kernel(f.s2, "consume", {f.x}, {});
  expect_race_fixed(f.b.take(), {{1, 4, kRaw, kCompute}});
}

// Rule 6: stream, event and device synchronisation join the host.
TEST(HostJoin, StreamSync) {
  Fixture f;
  f.b.memcpy(f.s1, f.p, f.x);
  f.b.sync(f.s1);
  f.b.host_read(f.p);
  expect_clean(f.b.take());
}

TEST(HostJoin, StreamSyncOfAnotherStream) {
  Fixture f;
  f.b.memcpy(f.s1, f.p, f.x);
  f.b.sync(f.s2);
  f.b.host_read(f.p);
  expect_race_fixed(f.b.take(), {{1, 3, kRaw, kHost, 1, 0}});
}

TEST(HostJoin, EventSync) {
  Fixture f;
  auto e = f.b.event("e");
  f.b.memcpy(f.s1, f.p, f.x);
  f.b.record(e, f.s1);
  f.b.sync_event(e);
  f.b.host_read(f.p);
  expect_clean(f.b.take());
}

TEST(HostJoin, EventSyncOfAnEarlierRecord) {
  Fixture f;
  auto e = f.b.event("e");
  f.b.record(e, f.s1);
  f.b.memcpy(f.s1, f.p, f.x);
  f.b.sync_event(e);
  f.b.host_read(f.p);
  expect_race_fixed(f.b.take(), {{2, 4, kRaw, kHost, 1, 0}});
}

TEST(HostJoin, DeviceSync) {
  Fixture f;
  f.b.memcpy(f.s1, f.p.slice(0, 1024), f.x);
  f.b.memcpy(f.s2, f.p.slice(1024, 1024), f.y);
  f.b.sync_device();
  f.b.host_read(f.p);
  expect_clean(f.b.take());
}

TEST(HostJoin, DeviceSyncOfAnotherDevice) {
  Fixture f;
  f.b.memcpy(f.s1, f.p, f.x);
  f.b.sync_device();
  f.b.last_op().mutable_sync()->set_device(1);
  f.b.host_read(f.p);
  expect_race_fixed(f.b.take(), {{1, 3, kRaw, kHost, 1, 0}});
}

// Rule 6: only a successful query is a join.
TEST(Query, SuccessfulEventQueryJoins) {
  Fixture f;
  auto e = f.b.event("e");
  f.b.memcpy(f.s1, f.p, f.x);
  f.b.record(e, f.s1);
  f.b.query(e, true);
  f.b.host_read(f.p);
  expect_clean(f.b.take());
}

TEST(Query, FailedEventQueryDoesNotJoin) {
  Fixture f;
  auto e = f.b.event("e");
  f.b.memcpy(f.s1, f.p, f.x);
  f.b.record(e, f.s1);
  f.b.query(e, false);
  f.b.host_read(f.p);
  expect_race_fixed(f.b.take(), {{1, 4, kRaw, kHost, 1, 0}});
}

TEST(Query, SuccessfulStreamQueryJoins) {
  Fixture f;
  f.b.memcpy(f.s1, f.p, f.x);
  f.b.query_stream(f.s1, true);
  f.b.host_write(f.p);
  expect_clean(f.b.take());
}

TEST(Query, FailedStreamQueryDoesNotJoin) {
  Fixture f;
  f.b.memcpy(f.s1, f.p, f.x);
  f.b.query_stream(f.s1, false);
  f.b.host_write(f.p);
  expect_race_fixed(f.b.take(), {{1, 3, kWaw, kHost, 1, 0}});
}

// Rule 6: a blocking cudaMemcpy returns when the copy is done.
TEST(BlockingCopy, JoinsTheHost) {
  Fixture f;
  f.b.memcpy(f.s1, f.p, f.x, /*async=*/false);
  f.b.host_read(f.p);
  expect_clean(f.b.take());
}

TEST(BlockingCopy, AsyncCopyIntoPinnedDoesNot) {
  Fixture f;
  f.b.memcpy(f.s1, f.p, f.x, /*async=*/true);
  f.b.host_read(f.p);
  expect_race_fixed(f.b.take(), {{1, 2, kRaw, kHost, 1, 0}});
}

// Rule 6: cudaMemcpyAsync D2H into pageable memory is staged and returns
// when done; into pinned memory it does not.
TEST(PageableD2H, JoinsTheHost) {
  Fixture f;
  auto h = f.b.pageable_buffer("H", 4096);
  f.b.memcpy(f.s1, h, f.x, /*async=*/true);
  f.b.host_read(h);
  expect_clean(f.b.take());
}

TEST(PageableD2H, IntoPinnedDoesNot) {
  Fixture f;
  f.b.memcpy(f.s1, f.p, f.x, /*async=*/true);
  f.b.sync(f.s2);
  f.b.host_write(f.p);
  expect_race_fixed(f.b.take(), {{1, 3, kWaw, kHost, 1, 0}});
}

// Rule 6: cudaFree synchronises the whole device; a stream-ordered free
// does not.
TEST(Free, CudaFreeJoinsDeviceWide) {
  Fixture f;
  f.b.kernel(f.s1, "produce", {}, {f.x});
  f.b.cuda_free(f.y);
  f.b.kernel(f.s2, "consume", {f.x}, {});
  expect_clean(f.b.take());
}

TEST(Free, StreamOrderedFreeDoesNotJoin) {
  Fixture f;
  f.b.kernel(f.s1, "produce", {}, {f.x});
  f.b.free(f.y, f.s2);
  f.b.kernel(f.s2, "consume", {f.x}, {});
  expect_race_fixed(f.b.take(), {{1, 3, kRaw, kCompute}});
}

// Rule 6: cudaMalloc (device_sync) joins; a caching allocator's block does not.
TEST(Alloc, CudaMallocJoins) {
  Fixture f;
  f.b.kernel(f.s1, "produce", {}, {f.x});
  f.b.alloc("Z", 4096, v1::ORIGIN_CUDA_MALLOC);
  EXPECT_TRUE(f.b.last_op().alloc().device_sync());
  f.b.kernel(f.s2, "consume", {f.x}, {});
  expect_clean(f.b.take());
}

TEST(Alloc, AllocatorBlockDoesNotJoin) {
  Fixture f;
  f.b.kernel(f.s1, "produce", {}, {f.x});
  f.b.alloc("Z", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, f.s2);
  f.b.kernel(f.s2, "consume", {f.x}, {});
  expect_race_fixed(f.b.take(), {{1, 3, kRaw, kCompute}});
}

// Rule 7: the legacy default stream waits for earlier work on blocking
// streams, and later work on blocking streams waits for it.
struct Legacy {
  TraceBuilder b;
  StreamId legacy = b.legacy_stream();
  Buffer x = b.device_buffer("X", 4096);
};

TEST(LegacyStream, WaitsForEarlierBlockingWork) {
  for (auto flags : {v1::STREAM_BLOCKING, v1::STREAM_PER_THREAD_DEFAULT}) {
    Legacy l;
    auto side = l.b.stream("side", v1::ROLE_OTHER, flags);
    l.b.kernel(side, "produce", {}, {l.x});
    l.b.kernel(l.legacy, "consume", {l.x}, {});
    expect_clean(l.b.take());
  }
}

TEST(LegacyStream, LaterBlockingWorkWaitsForIt) {
  for (auto flags : {v1::STREAM_BLOCKING, v1::STREAM_PER_THREAD_DEFAULT}) {
    Legacy l;
    auto side = l.b.stream("side", v1::ROLE_OTHER, flags);
    l.b.kernel(l.legacy, "produce", {}, {l.x});
    l.b.kernel(side, "consume", {l.x}, {});
    expect_clean(l.b.take());
  }
}

TEST(LegacyStream, NonBlockingStreamsAreExempt) {
  Legacy l;
  auto side = l.b.stream("side", v1::ROLE_OTHER, v1::STREAM_NON_BLOCKING);
  l.b.kernel(side, "produce", {}, {l.x});
  l.b.kernel(l.legacy, "consume", {l.x}, {});
  l.b.kernel(side, "overwrite", {}, {l.x});
  expect_race_fixed(l.b.take(), {{1, 2, kRaw, kCompute}, {2, 3, kWar, kCompute}});
}

TEST(LegacyStream, BlockingStreamsAreNotOrderedWithEachOther) {
  Legacy l;
  auto a = l.b.stream("a", v1::ROLE_OTHER, v1::STREAM_BLOCKING);
  auto c = l.b.stream("c", v1::ROLE_OTHER, v1::STREAM_PER_THREAD_DEFAULT);
  l.b.kernel(a, "produce", {}, {l.x});
  l.b.kernel(c, "consume", {l.x}, {});
  expect_race_fixed(l.b.take(), {{1, 2, kRaw, kCompute}});
}

TEST(LegacyStream, OrdersOnlyItsOwnDevice) {
  Legacy l;
  auto other = l.b.stream("other", v1::ROLE_OTHER, v1::STREAM_BLOCKING);
  l.b.kernel(other, "produce", {}, {l.x});  // peer access from device 1
  l.b.kernel(l.legacy, "consume", {l.x}, {});
  v1::Chunk trace = l.b.take();
  trace.mutable_streams(1)->set_device(1);
  expect_race_fixed(trace, {{1, 2, kRaw, kCompute}});
}

// Rule 8.
TEST(HostFunc, RunsInStreamOrder) {
  Fixture f;
  f.b.host_write(f.p);
  f.b.memcpy(f.s1, f.p, f.x);
  f.b.host_func(f.s1, "consume", {f.p});
  expect_clean(f.b.take());
}

TEST(HostFunc, OnAnotherStreamIsNotOrdered) {
  Fixture f;
  f.b.memcpy(f.s1, f.p, f.x);
  f.b.host_func(f.s2, "consume", {f.p});
  expect_race_fixed(f.b.take(), {{1, 2, kRaw, kCopyCompute, 1, 0}});
}

// Rule 9: nodes follow the graph's edges.
TEST(Graph, NodesFollowEdges) {
  Fixture f;
  launch_graph(f.b, f.s1, {{{}, {f.x}, {}}, {{f.x}, {}, {0}}});
  expect_clean(f.b.take());
}

TEST(Graph, NodesWithoutAnEdgeRace) {
  Fixture f;
  launch_graph(f.b, f.s1, {{{}, {f.x}, {}}, {{f.x}, {}, {}}, {{}, {f.y}, {}}});
  const v1::Chunk trace = f.b.take();
  const auto result = expect_hazards(trace, {{1, 1, kRaw, kCompute, 0, 0, 1, 2}});
  // No event orders two nodes of one launch (the missing edge is the fix):
  // an event edit leaves the hazard, and the report must not call it verified.
  const v1::Chunk fixed = apply_edits(trace, fix_edits_for(result.all, *result.tables));
  EXPECT_EQ(check_all(fixed).all.size(), 1u);
  TempDir dir;
  ASSERT_TRUE(save_trace(trace, dir.path("graph.pbtxt")).ok());
  auto checked = race::check_file(dir.path("graph.pbtxt"), race::CheckOptions{});
  ASSERT_TRUE(checked.ok()) << checked.error().describe();
  ASSERT_EQ(checked->groups.size(), 1u);
  EXPECT_FALSE(checked->groups[0].fix.verified);
  EXPECT_FALSE(checked->fixes_verified);
}

TEST(Graph, RootsWaitForEarlierStreamWork) {
  Fixture f;
  f.b.kernel(f.s1, "produce", {}, {f.x});
  launch_graph(f.b, f.s1, {{{f.x}, {}, {}}, {{f.x}, {f.y}, {}}});
  expect_clean(f.b.take());
}

TEST(Graph, RootsDoNotWaitForOtherStreams) {
  Fixture f;
  f.b.kernel(f.s2, "produce", {}, {f.x});
  launch_graph(f.b, f.s1, {{{f.x}, {}, {}}, {{}, {f.y}, {0}}});
  expect_race_fixed(f.b.take(), {{1, 2, kRaw, kCompute, 0, 0, 0, 1}});
}

TEST(Graph, LaterStreamWorkWaitsForAllNodes) {
  Fixture f;
  launch_graph(f.b, f.s1, {{{}, {f.x}, {}}, {{}, {f.y}, {}}});
  f.b.kernel(f.s1, "consume", {f.x, f.y}, {});
  expect_clean(f.b.take());
}

TEST(Graph, OtherStreamsDoNotWaitForNodes) {
  Fixture f;
  launch_graph(f.b, f.s1, {{{}, {f.x}, {}}, {{}, {f.y}, {}}});
  f.b.kernel(f.s2, "consume", {f.x, f.y}, {});
  expect_race_fixed(f.b.take(), {{1, 2, kRaw, kCompute, 0, 0, 1, 0}, {1, 2, kRaw, kCompute, 0, 1, 2, 0}});
}

// Rule 10: threads of one process are not ordered with each other.
TEST(HostThreads, ASyncOnOneThreadDoesNotOrderAnother) {
  Fixture f;
  auto main = f.b.thread("main");
  auto worker = f.b.thread("worker");
  f.b.on_thread(main);
  f.b.memcpy(f.s1, f.p, f.x);
  f.b.sync(f.s1);
  f.b.host_read(f.p);  // ordered: this thread synchronised
  f.b.on_thread(worker);
  f.b.host_read(f.p);  // not ordered
  expect_race_fixed(f.b.take(), {{1, 4, kRaw, kHost, 1, 0}});
}

TEST(HostThreads, HostAccessesOfTwoThreadsCannotBeFixedWithCuda) {
  Fixture f;
  auto main = f.b.thread("main");
  auto worker = f.b.thread("worker");
  f.b.on_thread(main);
  f.b.host_write(f.p);
  f.b.on_thread(worker);
  f.b.host_read(f.p);
  const auto result = expect_hazards(f.b.take(), {{1, 2, kRaw, kHost}});
  const race::Fix fix = race::suggest_fix(result.all.at(0), *result.tables);
  EXPECT_FALSE(fix.available);
  EXPECT_NE(fix.text.find("host"), std::string::npos) << fix.text;
}

// docs/design.md §6: definite for exact extents and known writers, likely for
// block extents, possible for unknown modes or whole segments.
Confidence only_confidence(const v1::Chunk& trace) {
  const race::CheckResult result = check_all(trace);
  EXPECT_EQ(result.all.size(), 1u);
  return result.all.empty() ? Confidence::kPossible : result.all[0].confidence;
}

TEST(Confidence, ExactCopiesAreDefinite) {
  Fixture f;
  f.b.memcpy(f.s1, f.p, f.x);
  f.b.memcpy(f.s2, f.y, f.p);
  const v1::Chunk trace = f.b.take();
  expect_hazards(trace, {{1, 2, kRaw, kCopyCopy, 1, 0}});
  EXPECT_EQ(only_confidence(trace), Confidence::kDefinite);
}

TEST(Confidence, KnownWriterAgainstUnknownModeIsDefinite) {
  Fixture f;
  f.b.memcpy(f.s1, f.x, f.p);
  f.b.kernel(f.s2, "k", {f.x}, {}, {.known_modes = false});
  EXPECT_EQ(only_confidence(f.b.take()), Confidence::kDefinite);
}

TEST(Confidence, BlockPrecisionIsLikely) {
  Fixture f;
  f.b.kernel(f.s1, "k1", {}, {f.x}, {.precision = v1::PRECISION_BLOCK});
  f.b.kernel(f.s2, "k2", {f.x}, {});
  EXPECT_EQ(only_confidence(f.b.take()), Confidence::kLikely);
}

TEST(Confidence, UnknownModesArePossible) {
  Fixture f;
  f.b.kernel(f.s1, "k1", {f.x}, {}, {.known_modes = false});
  f.b.kernel(f.s2, "k2", {f.x}, {});
  EXPECT_EQ(only_confidence(f.b.take()), Confidence::kPossible);
}

TEST(Confidence, SegmentExtentsArePossible) {
  Fixture f;
  f.b.memcpy(f.s1, f.x, f.p);
  f.b.kernel(f.s2, "k2", {f.x}, {}, {.raw_words_only = true});  // X is a cudaMalloc segment
  const race::CheckResult result = check_all(f.b.take());
  ASSERT_EQ(result.all.size(), 1u);
  EXPECT_EQ(result.all[0].confidence, Confidence::kPossible);
  EXPECT_EQ(result.all[0].second.access.precision, v1::PRECISION_SEGMENT);
  EXPECT_FALSE(result.all[0].second.access.mode_known);
}

TEST(Confidence, PossibleHazardsAreCountedNotShownByDefault) {
  Fixture f;
  f.b.kernel(f.s1, "k1", {f.x}, {}, {.known_modes = false});
  f.b.kernel(f.s2, "k2", {f.x}, {});
  const race::CheckResult result = race::check_trace(f.b.take(), race::CheckOptions{});
  EXPECT_EQ(result.by_confidence[static_cast<int>(Confidence::kPossible)], 1u);
  EXPECT_EQ(result.shown_groups(), 0u);
  ASSERT_EQ(result.groups.size(), 1u);
  EXPECT_NE(result.groups[0].settle.find("unknown"), std::string::npos) << result.groups[0].settle;
}

// Kernel argument words resolve to the finest live region containing them:
// annotation, then allocator block, then driver allocation.
struct Nested {
  TraceBuilder b;
  StreamId s1 = b.stream("s1", v1::ROLE_COMPUTE);
  StreamId s2 = b.stream("s2", v1::ROLE_OTHER);
  Buffer segment = b.device_buffer("segment", 1 << 16);
  Buffer block = b.alloc_at("block", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, s1, segment.base + 8192);
  Buffer note = b.alloc_at("note", 1024, v1::ORIGIN_ANNOTATION, s1, block.base + 1024);
};

std::vector<race::ResolvedAccess> resolve_last(const v1::Chunk& trace,
                                               std::vector<race::KernelModeRule> rules = {}) {
  TraceTables tables;
  tables.add(trace);
  race::AccessResolver resolver(std::move(rules));
  resolver.add_entities(trace, tables);
  std::vector<race::ResolvedAccess> out;
  for (const v1::Op& op : trace.ops()) {
    resolver.on_op(op);
    resolver.resolve(op, out);
  }
  return out;
}

void raw_kernel(TraceBuilder& b, StreamId s, std::string_view name, const std::vector<uint64_t>& words) {
  b.kernel(s, name, {}, {}, {.raw_words_only = true, .scalars = words});
}

TEST(ArgumentWords, ResolveToTheFinestLiveRegion) {
  Nested n;
  raw_kernel(n.b, n.s1, "k",
             {n.note.base + 10, n.block.base + 3000, n.segment.base + 100, 0x1234, 42, n.block.base + 3001});
  const v1::Chunk trace = n.b.take();
  const auto accesses = resolve_last(trace);
  ASSERT_EQ(accesses.size(), 3u);  // two words into the block make one access
  EXPECT_EQ(accesses[0].region, n.note.region);
  EXPECT_EQ(accesses[0].lo, n.note.base);
  EXPECT_EQ(accesses[0].hi, n.note.base + n.note.size);
  EXPECT_EQ(accesses[0].precision, v1::PRECISION_BLOCK);
  EXPECT_EQ(accesses[1].region, n.block.region);
  EXPECT_EQ(accesses[1].precision, v1::PRECISION_BLOCK);
  EXPECT_EQ(accesses[2].region, n.segment.region);
  EXPECT_EQ(accesses[2].precision, v1::PRECISION_SEGMENT);
  for (const auto& a : accesses) {
    EXPECT_FALSE(a.mode_known);
    EXPECT_TRUE(a.reads && a.writes);  // unknown: both
  }
}

TEST(ArgumentWords, FreedRegionsFallBackToTheNextTier) {
  Nested n;
  n.b.free(n.note, n.s1);
  n.b.free(n.block, n.s1);
  raw_kernel(n.b, n.s1, "k", {n.note.base + 10});
  const auto accesses = resolve_last(n.b.take());
  ASSERT_EQ(accesses.size(), 1u);
  EXPECT_EQ(accesses[0].region, n.segment.region);
  EXPECT_EQ(accesses[0].precision, v1::PRECISION_SEGMENT);
}

TEST(ArgumentWords, BlockExtentsRaceAsLikelyWithKernelModes) {
  Nested n;
  raw_kernel(n.b, n.s1, "producer", {n.block.base, 7});
  raw_kernel(n.b, n.s2, "consumer", {7, n.block.base + 64});
  auto rules = race::parse_kernel_modes("producer writes=1\nconsumer reads=2\n");
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  race::CheckOptions options = keep_all_options();
  options.kernel_modes = *rules;
  const auto result = expect_hazards(n.b.take(), {{3, 4, kRaw, kCompute, 0, 1}}, options);
  ASSERT_EQ(result.all.size(), 1u);
  EXPECT_EQ(result.all[0].confidence, Confidence::kLikely);
  EXPECT_EQ(result.all[0].lo, n.block.base);
  EXPECT_EQ(result.all[0].hi, n.block.base + n.block.size);
}

// A region's lifetime starts at its ALLOC op, also when a streaming writer
// put the region's definition in one chunk and the op in the next (the
// chunk filled up in between).
TEST(ArgumentWords, RegionAllocatedInALaterChunkIsNotLiveBefore) {
  TempDir dir;
  const std::string path = dir.path("split.rtrace");
  auto writer = TraceWriter::create(path, WriterOptions{.compress = false, .ops_per_chunk = 2});
  ASSERT_TRUE(writer.ok()) << writer.error().describe();
  Buffer segment;
  {
    TraceBuilder b(*writer);
    auto s1 = b.stream("s1", v1::ROLE_COMPUTE);
    auto s2 = b.stream("s2", v1::ROLE_OTHER);
    segment = b.device_buffer("segment", 4096);
    auto host = b.pinned_buffer("host", 4096);
    b.memcpy(s1, segment.slice(0, 64), host.slice(0, 64));                    // seq 1
    raw_kernel(b, s2, "reader", {segment.base});                              // seq 2
    b.alloc_at("block", 1024, v1::ORIGIN_FRAMEWORK_BLOCK, s1, segment.base);  // seq 3, next chunk
    ASSERT_TRUE(b.finish().ok());
  }
  ASSERT_TRUE(writer->close().ok());
  ASSERT_EQ(writer->chunks_written(), 2u);
  auto result = race::check_file(path, keep_all_options());
  ASSERT_TRUE(result.ok()) << result.error().describe();
  ASSERT_EQ(result->all.size(), 1u);
  const race::Hazard& h = result->all[0];
  // The block does not exist yet: the word points into the segment.
  EXPECT_EQ(h.first.access.region, segment.region);
  EXPECT_EQ(h.second.access.region, segment.region);
  EXPECT_EQ(h.second.access.precision, v1::PRECISION_SEGMENT);
  EXPECT_EQ(h.confidence, Confidence::kPossible);
}

TEST(KernelModes, ListedWordsGetKnownModesAndOthersAreNotAccessed) {
  Nested n;
  raw_kernel(n.b, n.s1, "gemm_fp16", {n.note.base, n.block.base + 3000, n.segment.base});
  auto rules =
      race::parse_kernel_modes("# modes\n^gemm reads=1 writes=2  # trailing comment\n^gemm writes=1,2,3\n");
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  ASSERT_EQ(rules->size(), 2u);
  const auto accesses = resolve_last(n.b.take(), *rules);  // the first matching rule wins
  ASSERT_EQ(accesses.size(), 2u);
  EXPECT_EQ(accesses[0].region, n.note.region);
  EXPECT_TRUE(accesses[0].mode_known && accesses[0].reads && !accesses[0].writes);
  EXPECT_EQ(accesses[1].region, n.block.region);
  EXPECT_TRUE(accesses[1].mode_known && !accesses[1].reads && accesses[1].writes);
}

TEST(KernelModes, KernelsWithRecordedAccessesIgnoreRules) {
  Fixture f;
  f.b.kernel(f.s1, "gemm", {f.x}, {});
  auto rules = race::parse_kernel_modes("gemm writes=1\n");
  ASSERT_TRUE(rules.ok());
  const auto accesses = resolve_last(f.b.take(), *rules);
  ASSERT_EQ(accesses.size(), 1u);
  EXPECT_TRUE(accesses[0].reads && !accesses[0].writes);
}

TEST(KernelModes, BadRulesNameTheLine) {
  for (const char* text : {"ok reads=1\nbad[ reads=1\n", "ok reads=1\nk reads=0\n", "ok reads=1\nk sizes=1\n",
                           "ok reads=1\nk writes=x\n"}) {
    auto rules = race::parse_kernel_modes(text);
    ASSERT_FALSE(rules.ok()) << text;
    EXPECT_NE(rules.error().message.find("line 2"), std::string::npos) << rules.error().message;
  }
  auto empty = race::parse_kernel_modes("# nothing\n\n");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

// Reuse: a freed region's addresses handed out again (C2).
TEST(Reuse, FreedBlockReusedWhileAnotherStreamReadsIt) {
  TraceBuilder b;
  auto compute = b.stream("compute", v1::ROLE_COMPUTE);
  auto offload = b.stream("offload", v1::ROLE_D2H);
  auto p = b.pinned_buffer("P", 4096);
  auto x = b.alloc("X", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, compute);
  b.kernel(compute, "produce", {}, {x});
  auto e = b.event("e");
  b.record(e, compute);
  b.wait(offload, e);
  b.memcpy(offload, p, x);  // seq 5 reads X
  b.free(x, compute);       // no record_stream(offload)
  auto y = b.alloc("Y", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, compute, &x);
  b.kernel(compute, "fill", {}, {y});  // seq 8 writes the reused block
  const v1::Chunk trace = b.take();
  const auto result = expect_hazards(trace, {{5, 8, kWar, kReuse, 0, 0}});
  const race::Fix fix = race::suggest_fix(result.all.at(0), *result.tables);
  EXPECT_NE(fix.pytorch.find("record_stream"), std::string::npos) << fix.pytorch;
  expect_fixes_clean(trace);
}

TEST(Reuse, RecordStreamDefersTheFree) {
  TraceBuilder b;
  auto compute = b.stream("compute", v1::ROLE_COMPUTE);
  auto offload = b.stream("offload", v1::ROLE_D2H);
  auto p = b.pinned_buffer("P", 4096);
  auto x = b.alloc("X", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, compute);
  auto e = b.event("e");
  auto used = b.event("used");
  b.kernel(compute, "produce", {}, {x});
  b.record(e, compute);
  b.wait(offload, e);
  b.memcpy(offload, p, x);
  b.record(used, offload);  // record_stream(offload): reuse waits for this
  b.query(used, true);
  b.free(x, compute);
  auto y = b.alloc("Y", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, compute, &x);
  b.kernel(compute, "fill", {}, {y});
  expect_clean(b.take());
}

TEST(Reuse, OverlappingLiveRegionsAreNotReuse) {
  Nested n;
  n.b.kernel(n.s1, "whole", {}, {n.segment.slice(8192, 4096)});
  n.b.kernel(n.s2, "part", {n.block}, {});
  expect_race_fixed(n.b.take(), {{3, 4, kRaw, kCompute}});
}

}  // namespace
}  // namespace racetrack::check_test
