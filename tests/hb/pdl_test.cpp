// Rule 1a (docs/ordering-rules.md): a kernel launched with programmatic
// stream serialization right after a kernel of its stream is ordered after
// it only when its machine code waits for its grid dependencies. Each test
// fails if the rule is flipped either way.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <optional>

#include "racetrack/hb/happens_before.h"
#include "racetrack/hb/hb_graph.h"
#include "racetrack/traces/builder.h"

namespace rt = racetrack;
using rt::hb::HappensBefore;
using rt::hb::PdlWait;

namespace {

class Pdl : public ::testing::Test {
 protected:
  Pdl() : s(b.stream("compute", rt::v1::ROLE_COMPUTE)), x(b.device_buffer("X", 64)) {}

  // A kernel on `stream`, launched with the PDL attribute when `wait` is
  // given (its code's wait, as the lookup will answer).
  void kernel(const char* name, std::optional<PdlWait> wait = {}, rt::StreamId stream = {}) {
    b.kernel(stream.id ? stream : s, name, {x}, {x});
    if (!wait) return;
    auto& k = *b.last_op().mutable_kernel();
    k.set_programmatic_stream_serialization(true);
    waits[k.name()] = *wait;
  }

  // Applies the trace; orders[i] is op i+1's order with a copy of its clock.
  void apply(bool with_lookup = true) {
    trace = b.take();
    hb.add_entities(trace);
    if (with_lookup)
      lookup_used = [this](const rt::v1::Kernel& k) {
        auto it = waits.find(k.name());
        return it == waits.end() ? PdlWait::kUnknown : it->second;
      };
    hb.set_pdl_wait_lookup(lookup_used);
    for (const auto& op : trace.ops()) {
      ASSERT_EQ(hb.cannot_apply(op), "");
      rt::hb::OpOrder o = hb.apply(op);
      clocks.push_back(*o.clock);
      orders.push_back(o);
    }
    for (size_t i = 0; i < orders.size(); ++i) orders[i].clock = &clocks[i];
  }

  // The explicit graph (racetrack why, the viewer's chains) encodes rule 1a
  // on its own; after every test it must agree with the clocks on each pair.
  void TearDown() override {
    if (orders.empty()) return;
    const auto graph = rt::hb::HbGraph::build(trace, 1, orders.size(), {}, lookup_used);
    for (size_t i = 1; i <= orders.size(); ++i)
      for (size_t j = i + 1; j <= orders.size(); ++j)
        EXPECT_EQ(graph.ordered(i, j), ordered(i, j)) << "#" << i << " -> #" << j;
  }

  // Whether op `later` (1-based seq) is ordered after op `earlier`.
  bool ordered(size_t earlier, size_t later) const {
    return orders[later - 1].covers(orders[earlier - 1].epoch);
  }

  rt::TraceBuilder b;
  rt::StreamId s;
  rt::Buffer x;
  std::map<uint32_t, PdlWait> waits;  // by kernel name string id
  rt::v1::Chunk trace;
  HappensBefore hb;
  std::deque<rt::hb::VectorClock> clocks;
  std::vector<rt::hb::OpOrder> orders;
  rt::hb::PdlWaitLookup lookup_used;
};

TEST_F(Pdl, SecondaryWithoutWaitIsUnorderedWithItsPrimaryOnly) {
  kernel("before");
  kernel("primary");
  kernel("secondary", PdlWait::kNone);
  kernel("after");
  apply();
  EXPECT_FALSE(ordered(2, 3));
  EXPECT_TRUE(ordered(1, 3)) << "the primary started after the stream's earlier work";
  EXPECT_TRUE(ordered(2, 4)) << "stream order resumes after the secondary";
  EXPECT_TRUE(ordered(3, 4));
  EXPECT_EQ(orders[2].pdl.wait, PdlWait::kNone);
}

TEST_F(Pdl, WaitBeforeEveryAccessOrdersIt) {
  kernel("primary");
  kernel("secondary", PdlWait::kWaits);
  apply();
  EXPECT_TRUE(ordered(1, 2));
  EXPECT_TRUE(orders[1].pdl.empty());
}

TEST_F(Pdl, AccessesBeforeTheWaitAndUnknownCodeLeaveItUnordered) {
  kernel("primary");
  kernel("early_access", PdlWait::kAccessesBefore);
  kernel("primary2");
  kernel("unknown_code", PdlWait::kUnknown);
  apply();
  EXPECT_FALSE(ordered(1, 2));
  EXPECT_FALSE(ordered(3, 4));
  EXPECT_EQ(orders[3].pdl.wait, PdlWait::kUnknown);
}

TEST_F(Pdl, WithoutALookupTheCodeIsUnknown) {
  kernel("primary");
  kernel("secondary", PdlWait::kWaits);
  apply(/*with_lookup=*/false);
  EXPECT_FALSE(ordered(1, 2));
  EXPECT_EQ(orders[1].pdl.wait, PdlWait::kUnknown);
}

TEST_F(Pdl, WithoutTheAttributeStreamOrderHolds) {
  kernel("primary");
  kernel("plain");
  apply();
  EXPECT_TRUE(ordered(1, 2));
}

TEST_F(Pdl, AnOpBetweenTheKernelsKeepsStreamOrder) {
  const auto e = b.event("e");
  kernel("primary");
  b.record(e, s);
  kernel("secondary", PdlWait::kNone);
  b.memcpy(s, x, x);
  kernel("after_copy", PdlWait::kNone);
  apply();
  EXPECT_TRUE(ordered(1, 3)) << "an event record sits between them";
  EXPECT_TRUE(ordered(4, 5)) << "a copy is no primary";
}

TEST_F(Pdl, AHostSyncAfterThePrimaryOrdersIt) {
  kernel("primary");
  b.sync(s);
  kernel("secondary", PdlWait::kNone);
  apply();
  EXPECT_TRUE(ordered(1, 3));
}

TEST_F(Pdl, ChainsOverlapWhatTheirPrimaryOverlapped) {
  kernel("a");
  kernel("b", PdlWait::kNone);
  kernel("c", PdlWait::kNone);
  kernel("d", PdlWait::kWaits);
  kernel("e");
  apply();
  EXPECT_FALSE(ordered(1, 3)) << "c may start while b, which may overlap a, runs";
  EXPECT_FALSE(ordered(2, 3));
  EXPECT_TRUE(ordered(3, 4)) << "d waits for its primary c";
  EXPECT_FALSE(ordered(1, 4)) << "but c did not wait for a or b";
  EXPECT_FALSE(ordered(2, 4));
  for (size_t earlier = 1; earlier <= 4; ++earlier) EXPECT_TRUE(ordered(earlier, 5));
}

TEST_F(Pdl, OtherStreamsSeeTheSecondaryInStreamOrder) {
  const auto other = b.stream("other", rt::v1::ROLE_OTHER);
  const auto e = b.event("e");
  kernel("primary");
  kernel("secondary", PdlWait::kNone);
  b.record(e, s);
  b.wait(other, e);
  kernel("reader", std::nullopt, other);
  apply();
  EXPECT_TRUE(ordered(1, 5));
  EXPECT_TRUE(ordered(2, 5));
  EXPECT_TRUE(orders[4].pdl.empty());
}

}  // namespace
