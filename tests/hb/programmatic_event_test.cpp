// Rule 5a (docs/ordering-rules.md): a kernel launched with a programmatic
// event (cudaLaunchAttributeProgrammaticEvent) records it at its trigger,
// not at its completion. A wait on it orders the waiter after what the
// kernel was ordered after; after the kernel itself only a dependent kernel
// whose code waits for its grid dependencies before every access. Each test
// fails if the rule is flipped either way; after each, the explicit graph
// must agree with the clocks on every pair.
#include <gtest/gtest.h>

#include <deque>
#include <map>

#include "racetrack/hb/happens_before.h"
#include "racetrack/hb/hb_graph.h"
#include "racetrack/traces/builder.h"

namespace rt = racetrack;
using rt::hb::PdlWait;

namespace {

class ProgrammaticEvent : public ::testing::Test {
 protected:
  ProgrammaticEvent()
      : s(b.stream("compute", rt::v1::ROLE_COMPUTE)),
        other(b.stream("other", rt::v1::ROLE_COMPUTE)),
        e(b.event("e")),
        x(b.device_buffer("X", 64)) {}

  // A kernel on `stream` whose code's grid-dependency wait the lookup answers.
  void kernel(const char* name, rt::StreamId stream, PdlWait wait = PdlWait::kUnknown) {
    b.kernel(stream, name, {x}, {x});
    waits[b.last_op().kernel().name()] = wait;
  }
  // A kernel on `s` that records `e` as its programmatic event.
  void primary(bool at_block_start = false) {
    kernel("primary", s);
    auto& k = *b.last_op().mutable_kernel();
    k.set_programmatic_event(e.id);
    k.set_programmatic_event_at_block_start(at_block_start);
  }

  void apply() {
    trace = b.take();
    hb.add_entities(trace);
    lookup = [this](const rt::v1::Kernel& k) {
      auto it = waits.find(k.name());
      return it == waits.end() ? PdlWait::kUnknown : it->second;
    };
    hb.set_pdl_wait_lookup(lookup);
    for (const auto& op : trace.ops()) {
      ASSERT_EQ(hb.cannot_apply(op), "");
      rt::hb::OpOrder o = hb.apply(op);
      clocks.push_back(*o.clock);
      programmatic.push_back(o.programmatic ? *o.programmatic : rt::hb::ProgrammaticWaits{});
      orders.push_back(o);
    }
    for (size_t i = 0; i < orders.size(); ++i) orders[i].clock = &clocks[i];
  }

  void TearDown() override {
    if (orders.empty()) return;
    const auto graph = rt::hb::HbGraph::build(trace, 1, orders.size(), {}, lookup);
    for (size_t i = 1; i <= orders.size(); ++i)
      for (size_t j = i + 1; j <= orders.size(); ++j)
        EXPECT_EQ(graph.ordered(i, j), ordered(i, j)) << "#" << i << " -> #" << j;
  }

  bool ordered(size_t earlier, size_t later) const {
    return orders[later - 1].covers(orders[earlier - 1].epoch);
  }
  // The programmatic wait op `seq`'s agent had made on kernel `kernel_seq`.
  const rt::hb::ProgrammaticWait* wait_of(size_t seq, uint64_t kernel_seq) const {
    return programmatic[seq - 1].find(kernel_seq);
  }

  rt::TraceBuilder b;
  rt::StreamId s, other;
  rt::EventId e;
  rt::Buffer x;
  std::map<uint32_t, PdlWait> waits;
  rt::v1::Chunk trace;
  rt::hb::HappensBefore hb;
  std::deque<rt::hb::VectorClock> clocks;
  std::deque<rt::hb::ProgrammaticWaits> programmatic;
  std::vector<rt::hb::OpOrder> orders;
  rt::hb::PdlWaitLookup lookup;
};

TEST_F(ProgrammaticEvent, ACopyAfterTheWaitIsNotOrderedAfterTheKernel) {
  kernel("before", s);
  primary();
  b.wait(other, e);
  b.memcpy(other, x, x);
  apply();
  EXPECT_FALSE(ordered(2, 4)) << "the event triggers before the kernel completes";
  EXPECT_TRUE(ordered(1, 4)) << "the kernel started after the stream's earlier work";
  const auto* w = wait_of(4, 2);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->wait_seq, 3u);
  EXPECT_EQ(w->event, e.id);
  EXPECT_FALSE(w->at_block_start);
  EXPECT_FALSE(w->dependent_kernel);
}

TEST_F(ProgrammaticEvent, ADependentKernelThatWaitsIsOrderedAfterTheKernel) {
  primary();
  b.wait(other, e);
  kernel("dependent", other, PdlWait::kWaits);
  b.memcpy(other, x, x);
  apply();
  EXPECT_TRUE(ordered(1, 3)) << "its grid-dependency wait is for the kernel's completion";
  EXPECT_TRUE(ordered(1, 4)) << "and the stream's later work follows it";
}

TEST_F(ProgrammaticEvent, ADependentKernelWithoutTheWaitIsNot) {
  primary();
  b.wait(other, e);
  kernel("no_wait", other, PdlWait::kNone);
  b.memcpy(other, x, x);
  apply();
  EXPECT_FALSE(ordered(1, 3));
  EXPECT_FALSE(ordered(1, 4));
  const auto* w = wait_of(3, 1);
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(w->dependent_kernel);
  EXPECT_EQ(w->dependent_seq, 3u);
  EXPECT_EQ(w->dependent_wait, PdlWait::kNone);
}

TEST_F(ProgrammaticEvent, OnlyTheKernelRightAfterTheWaitIsTheDependent) {
  primary();
  b.wait(other, e);
  b.memcpy(other, x, x);
  kernel("later", other, PdlWait::kWaits);
  apply();
  EXPECT_FALSE(ordered(1, 3));
  EXPECT_FALSE(ordered(1, 4)) << "a copy sits between the wait and the kernel";
}

TEST_F(ProgrammaticEvent, AHostSyncOrQueryDoesNotWaitForTheKernel) {
  primary(/*at_block_start=*/true);
  b.sync_event(e);
  b.host_read(x);
  b.query(e, true);
  b.host_write(x);
  apply();
  EXPECT_FALSE(ordered(1, 3));
  EXPECT_FALSE(ordered(1, 5));
  const auto* w = wait_of(3, 1);
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(w->at_block_start);
  EXPECT_EQ(wait_of(5, 1)->wait_seq, 4u) << "the latest wait on the kernel";
}

TEST_F(ProgrammaticEvent, AnOrdinaryRecordOfTheSameEventOrdersAfterTheKernel) {
  primary();
  b.record(e, s);
  b.wait(other, e);
  b.memcpy(other, x, x);
  apply();
  EXPECT_TRUE(ordered(1, 4)) << "the record after the kernel replaces the programmatic one";
  EXPECT_EQ(wait_of(4, 1), nullptr);
}

TEST_F(ProgrammaticEvent, LaterWorkOnTheKernelsStreamAndASyncOfItAreOrdered) {
  primary();
  kernel("next", s);
  b.wait(other, e);
  b.sync(s);
  b.memcpy(other, x, x);
  apply();
  EXPECT_TRUE(ordered(1, 2)) << "the attribute does not change stream order";
  EXPECT_TRUE(ordered(1, 5)) << "the host saw the stream complete before enqueueing the copy";
}

TEST_F(ProgrammaticEvent, APdlSecondaryTriggersBeforeWhatItOverlaps) {
  kernel("before", s);
  kernel("pdl_primary", s);
  primary();
  auto& k = *b.last_op().mutable_kernel();
  k.set_programmatic_stream_serialization(true);
  waits[k.name()] = PdlWait::kNone;
  b.wait(other, e);
  b.memcpy(other, x, x);
  apply();
  EXPECT_TRUE(ordered(1, 5));
  EXPECT_FALSE(ordered(2, 5)) << "the kernel itself may have started before #2 finished";
  EXPECT_FALSE(ordered(3, 5));
}

}  // namespace
