// Happens-before state is sized by what a trace does, not by the numbers it
// holds: event ids up to 2^32 - 1, thousands of streams, graph launches of
// tens of thousands of nodes, and clear limits where a trace would need
// more memory than racetrack allows (issue #15; docs/fuzzing.md).
#include <gtest/gtest.h>

#include <random>

#include "racetrack/hb/graph_order.h"
#include "racetrack/hb/happens_before.h"
#include "racetrack/hb/hb_graph.h"
#include "racetrack/traces/builder.h"

namespace rt = racetrack;
using rt::hb::GraphOrder;
using rt::hb::HappensBefore;

namespace {

// s1 records event `id`, s2 waits for it: the wait orders s2 after s1's
// record whatever the id.
TEST(HbRobustness, EventIdsDoNotSizeTheState) {
  for (uint32_t id : {0xFFFFFFFFu, 0x80000000u, 100000000u}) {
    rt::TraceBuilder b;
    const auto s1 = b.stream("s1", rt::v1::ROLE_COMPUTE);
    const auto s2 = b.stream("s2", rt::v1::ROLE_OTHER);
    const auto e = b.event("e");
    const auto x = b.device_buffer("X", 64);
    b.kernel(s1, "w", {}, {x});
    b.record(e, s1);
    b.last_op().mutable_record()->set_event(id);
    b.wait(s2, e);
    b.last_op().mutable_wait()->set_event(id);
    b.kernel(s2, "r", {x}, {});
    const rt::v1::Chunk trace = b.take();
    HappensBefore hb;
    hb.add_entities(trace);
    std::vector<rt::hb::Epoch> epochs;
    rt::hb::VectorClock last;
    for (const auto& op : trace.ops()) {
      ASSERT_EQ(hb.cannot_apply(op), "");
      const auto order = hb.apply(op);
      epochs.push_back(order.epoch);
      last = *order.clock;
    }
    EXPECT_TRUE(last.covers(epochs[0])) << "event " << id;
    EXPECT_LT(hb.clock_entries(), 20u) << "event " << id;
  }
}

// 10^4 streams each given one kernel by one thread: a dense clock per
// stream would hold 10^8 entries.
TEST(HbRobustness, ManyStreamsKeepSmallClocks) {
  rt::TraceBuilder b;
  std::vector<rt::StreamId> streams;
  for (int i = 0; i < 10000; ++i) streams.push_back(b.stream("", rt::v1::ROLE_COMPUTE));
  for (const auto s : streams) b.kernel(s, "k", {}, {});
  const rt::v1::Chunk trace = b.take();
  HappensBefore hb;
  hb.add_entities(trace);
  for (const auto& op : trace.ops()) hb.apply(op);
  EXPECT_EQ(hb.exceeded(), "");
  EXPECT_LT(hb.clock_entries(), 4u * 10000);
}

// Streams that all meet (a device sync, then work on each) need a clock
// entry per pair: past the limit the state says so instead of growing.
TEST(HbRobustness, ClockLimitIsAClearError) {
  rt::TraceBuilder b;
  std::vector<rt::StreamId> streams;
  for (int i = 0; i < 100; ++i) streams.push_back(b.stream("", rt::v1::ROLE_COMPUTE));
  for (const auto s : streams) b.kernel(s, "k", {}, {});
  b.sync_device();
  for (const auto s : streams) b.kernel(s, "k", {}, {});
  const rt::v1::Chunk trace = b.take();
  HappensBefore hb(5000);
  hb.add_entities(trace);
  for (const auto& op : trace.ops()) {
    hb.apply(op);
    if (!hb.exceeded().empty()) break;
  }
  EXPECT_NE(hb.exceeded().find("need more than 5000 entries"), std::string::npos) << hb.exceeded();
  EXPECT_NE(hb.exceeded().find("racetrack's limit"), std::string::npos);
}

// Recorded events hold snapshots of their stream's clock, and those count
// too: 200 events recorded on a stream that has met 100 others pass a
// limit of 5000 entries, while one event recorded 200 times (its snapshot
// replaced each time) does not.
TEST(HbRobustness, RecordedEventsCountTowardsTheClockLimit) {
  for (const bool distinct : {true, false}) {
    rt::TraceBuilder b;
    std::vector<rt::StreamId> streams;
    for (int i = 0; i < 100; ++i) streams.push_back(b.stream("", rt::v1::ROLE_COMPUTE));
    for (const auto s : streams) b.kernel(s, "k", {}, {});
    b.sync_device();
    b.kernel(streams[0], "k", {}, {});
    const auto same = b.event("same");
    for (int i = 0; i < 200; ++i) b.record(distinct ? b.event("e" + std::to_string(i)) : same, streams[0]);
    const rt::v1::Chunk trace = b.take();
    HappensBefore hb(5000);
    hb.add_entities(trace);
    for (const auto& op : trace.ops()) hb.apply(op);
    if (distinct) {
      EXPECT_NE(hb.exceeded().find("need more than 5000 entries"), std::string::npos) << hb.exceeded();
    } else {
      EXPECT_EQ(hb.exceeded(), "");
      EXPECT_LT(hb.clock_entries(), 1000u);
    }
  }
}

rt::v1::GraphLaunch random_dag(std::mt19937_64& rng, uint32_t nodes, double edge_probability) {
  rt::v1::GraphLaunch g;
  std::bernoulli_distribution edge(edge_probability);
  for (uint32_t i = 0; i < nodes; ++i) {
    auto& n = *g.add_nodes();
    n.set_index(i);
    for (uint32_t j = 0; j < i; ++j)
      if (edge(rng)) n.add_deps(j);
  }
  return g;
}

// follows() is reachability: checked against the transitive closure of
// random DAGs, sparse and dense.
TEST(HbRobustness, GraphOrderIsReachability) {
  std::mt19937_64 rng(15);
  for (int round = 0; round < 40; ++round) {
    const uint32_t n = 1 + static_cast<uint32_t>(rng() % 40);
    const auto g = random_dag(rng, n, round % 2 ? 0.05 : 0.3);
    std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));  // reach[i][j]: i follows j
    for (uint32_t i = 0; i < n; ++i) {
      reach[i][i] = true;
      for (uint32_t d : g.nodes(static_cast<int>(i)).deps())
        for (uint32_t j = 0; j < n; ++j)
          if (reach[d][j]) reach[i][j] = true;
    }
    GraphOrder order;
    ASSERT_EQ(order.build(g), "");
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t j = 0; j < n; ++j) ASSERT_EQ(order.follows(i, j), reach[i][j]) << i << " " << j;
  }
}

// Captured graphs are chains with forks and joins: linear, where a clock per
// node was quadratic (30,000 nodes took 3.5 GB).
TEST(HbRobustness, LargeGraphsStayLinear) {
  const uint32_t n = 30000;
  rt::v1::GraphLaunch chain, fan;
  for (uint32_t i = 0; i < n; ++i) {
    auto& c = *chain.add_nodes();
    c.set_index(i);
    if (i) c.add_deps(i - 1);
    auto& f = *fan.add_nodes();
    f.set_index(i);
    if (i == n - 1)
      for (uint32_t j = 1; j < i; ++j) f.add_deps(j);  // the join of a fan-out
    else if (i)
      f.add_deps(0);
  }
  GraphOrder order;
  ASSERT_EQ(order.build(chain), "");
  EXPECT_TRUE(order.follows(n - 1, 0));
  EXPECT_FALSE(order.follows(0, n - 1));
  EXPECT_LE(order.entries(), size_t{n});
  ASSERT_EQ(order.build(fan), "");
  EXPECT_TRUE(order.follows(n - 1, 7));
  EXPECT_TRUE(order.follows(7, 0));
  EXPECT_FALSE(order.follows(7, 8));
  EXPECT_LE(order.entries(), size_t{4} * n);
}

TEST(HbRobustness, GraphOrderLimitIsAClearError) {
  std::mt19937_64 rng(3);
  const auto g = random_dag(rng, 200, 0.5);
  GraphOrder order;
  const std::string why = order.build(g, 1000);
  EXPECT_NE(why.find("more than 1000 chain positions"), std::string::npos) << why;
}

// A window without ops: no edges, and Boost's transitive_reduction is not
// asked to index a graph without vertices (found by fuzz_why).
TEST(HbRobustness, EmptyWindowHasNoEdges) {
  rt::TraceBuilder b;
  b.kernel(b.stream("s", rt::v1::ROLE_COMPUTE), "k", {}, {});
  const rt::v1::Chunk trace = b.take();
  const auto graph = rt::hb::HbGraph::build(trace, 100, 200);
  EXPECT_EQ(graph.vertex_count(), 0u);
  EXPECT_TRUE(graph.transitive_reduction().empty());
  EXPECT_TRUE(graph.chain(100, 200).empty());
}

}  // namespace
