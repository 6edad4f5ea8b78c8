// Fixes that wait on an event the program already records right after the
// first op (e.g. an offload event recorded after the offload copy) instead of
// recording a new one; when no such event is current, a new one; and the
// fixed trace, with either kind of edit, is valid and checks clean.
#include <gtest/gtest.h>

#include <algorithm>

#include "check_test_support.h"
#include "racetrack/traces/builder.h"
#include "racetrack/traces/trace_io.h"
#include "test_support.h"

namespace racetrack::check_test {
namespace {

using racetrack::testing::TempDir;

const std::string kSamples = RACETRACK_SAMPLES_DIR;

// Offload then reload of one pinned buffer with no wait between them; what
// `between` adds after the offload (on the builder) decides whether the
// offload stream's own event is still a fix.
struct Offload {
  TraceBuilder b;
  StreamId compute, d2h, other;
  EventId offloaded;
  ThreadId main, side;
  Buffer x, pinned, reloaded;

  Offload() {
    compute = b.stream("compute", v1::ROLE_COMPUTE);
    d2h = b.stream("d2h", v1::ROLE_D2H);
    other = b.stream("other", v1::ROLE_COMPUTE);
    offloaded = b.event("layer1.offload_event");
    main = b.thread("main");
    side = b.thread("side");
    x = b.device_buffer("X", 4096);
    pinned = b.pinned_buffer("P", 4096);
    reloaded = b.device_buffer("R", 4096);
    b.on_thread(main);
    b.kernel(compute, "fwd", {}, {x});
    const EventId joined = b.event("joined");
    b.record(joined, compute);
    b.wait(d2h, joined);
    b.memcpy(d2h, pinned, x);  // seq 4: the offload
  }
  // The reload, on compute with no wait: the hazard's second op.
  v1::Chunk reload() {
    b.on_thread(main);
    b.memcpy(compute, reloaded, pinned);
    return b.take();
  }
};

const race::HazardGroup& only_group(const race::CheckResult& r) {
  EXPECT_EQ(r.groups.size(), 1u);
  return r.groups.at(0);
}

TEST(ExistingEventFix, WaitsOnTheEventRecordedRightAfterTheFirstOp) {
  Offload t;
  t.b.record(t.offloaded, t.d2h);
  const v1::Chunk trace = t.reload();
  const race::CheckResult r = check_all(trace);
  const race::HazardGroup& g = only_group(r);
  EXPECT_EQ(g.first.event_after_first, t.offloaded.id);
  ASSERT_TRUE(g.fix.available);
  EXPECT_EQ(g.fix.edit.existing_event, t.offloaded.id);
  EXPECT_NE(g.fix.text.find("make compute wait on layer1.offload_event before #6"), std::string::npos)
      << g.fix.text;
  EXPECT_NE(g.fix.text.find("d2h already records it right after #4"), std::string::npos) << g.fix.text;
  EXPECT_EQ(g.fix.text.find("record an event"), std::string::npos) << g.fix.text;
  EXPECT_NE(g.fix.pytorch.find("compute.wait_event(layer1.offload_event)"), std::string::npos)
      << g.fix.pytorch;

  // The fixed trace: one op more (the wait, on the existing event), no new event.
  const v1::Chunk fixed = apply_edits(trace, fix_edits_for(r.all, *r.tables));
  EXPECT_EQ(validation_errors(fixed), std::vector<std::string>{});
  EXPECT_EQ(fixed.ops_size(), trace.ops_size() + 1);
  EXPECT_EQ(fixed.events_size(), trace.events_size());
  const v1::Op& wait = fixed.ops(fixed.ops_size() - 2);
  ASSERT_TRUE(wait.has_wait()) << text_format(fixed);
  EXPECT_EQ(wait.wait().event(), t.offloaded.id);
  EXPECT_EQ(wait.stream(), t.compute.id);
  expect_clean(fixed);
}

TEST(ExistingEventFix, OtherWorkBetweenTheOpAndTheRecordNeedsANewEvent) {
  Offload t;
  t.b.kernel(t.d2h, "pack", {}, {t.b.device_buffer("scratch", 64)});
  t.b.record(t.offloaded, t.d2h);  // also after the pack: waiting on it would wait for more
  const v1::Chunk trace = t.reload();
  const race::CheckResult r = check_all(trace);
  const race::HazardGroup& g = only_group(r);
  EXPECT_EQ(g.fix.edit.existing_event, 0u);
  EXPECT_NE(g.fix.text.find("record an event on d2h after #4"), std::string::npos) << g.fix.text;
  const v1::Chunk fixed = apply_edits(trace, fix_edits_for(r.all, *r.tables));
  EXPECT_EQ(fixed.ops_size(), trace.ops_size() + 2);
  EXPECT_EQ(fixed.events_size(), trace.events_size() + 1);
  expect_clean(fixed);
}

TEST(ExistingEventFix, AnEventRecordedAgainElsewhereIsNoLongerAFix) {
  Offload t;
  t.b.record(t.offloaded, t.d2h);
  t.b.record(t.offloaded, t.other);  // the wait would bind this record, which orders nothing
  const v1::Chunk trace = t.reload();
  const race::CheckResult r = check_all(trace);
  const race::HazardGroup& g = only_group(r);
  EXPECT_EQ(g.fix.edit.existing_event, 0u) << g.fix.text;
  expect_fixes_clean(trace);
}

TEST(ExistingEventFix, ARecordIssuedByAnotherThreadIsNotReused) {
  Offload t;
  t.b.on_thread(t.side);
  t.b.record(t.offloaded, t.d2h);
  const v1::Chunk trace = t.reload();
  const race::CheckResult r = check_all(trace);
  EXPECT_EQ(only_group(r).fix.edit.existing_event, 0u) << only_group(r).fix.text;
  expect_fixes_clean(trace);
}

TEST(ExistingEventFix, ARecordAfterTheSecondOpIsTooLate) {
  Offload t;
  t.b.memcpy(t.compute, t.reloaded, t.pinned);  // the reload, before the offload event
  t.b.record(t.offloaded, t.d2h);
  const v1::Chunk trace = t.b.take();
  const race::CheckResult r = check_all(trace);
  EXPECT_EQ(only_group(r).fix.edit.existing_event, 0u) << only_group(r).fix.text;
  expect_fixes_clean(trace);
}

TEST(ExistingEventFix, TheHostSynchronisesWithTheExistingEvent) {
  Offload t;
  t.b.record(t.offloaded, t.d2h);
  t.b.host_read(t.pinned);
  const v1::Chunk trace = t.b.take();
  const race::CheckResult r = check_all(trace);
  const race::HazardGroup& g = only_group(r);
  EXPECT_EQ(g.fix.edit.existing_event, t.offloaded.id);
  EXPECT_NE(g.fix.text.find("synchronise the host with layer1.offload_event before #6"), std::string::npos)
      << g.fix.text;
  EXPECT_NE(g.fix.pytorch.find("layer1.offload_event.synchronize()"), std::string::npos) << g.fix.pytorch;
  const v1::Chunk fixed = apply_edits(trace, fix_edits_for(r.all, *r.tables));
  const v1::Op& sync = fixed.ops(fixed.ops_size() - 2);
  ASSERT_TRUE(sync.has_sync()) << text_format(fixed);
  EXPECT_EQ(sync.sync().event(), t.offloaded.id);
  expect_clean(fixed);
}

// Edits on existing and new events in one multi-chunk trace: events defined
// in later chunks keep their meaning once the new events are added.
TEST(ExistingEventFix, MixedEditsAcrossChunksRemapEvents) {
  TempDir dir;
  const std::string path = dir.path("mixed.rtrace"), fixed = dir.path("fixed.rtrace");
  {
    auto writer = TraceWriter::create(path);
    ASSERT_TRUE(writer.ok());
    TraceBuilder b(*writer);
    const StreamId compute = b.stream("compute", v1::ROLE_COMPUTE), d2h = b.stream("d2h", v1::ROLE_D2H);
    const Buffer x = b.device_buffer("X", 4096), p = b.pinned_buffer("P", 4096),
                 y = b.device_buffer("Y", 4096);
    const EventId early = b.event("early");
    b.memcpy(d2h, p, x);
    b.record(early, d2h);  // reusable
    b.kernel(compute, "reads_p", {p}, {});
    ASSERT_TRUE(b.finish().ok());
    const EventId late = b.event("late");  // defined in the second chunk
    b.kernel(d2h, "writes_y", {}, {y});
    b.kernel(d2h, "more", {}, {b.device_buffer("Z", 64)});
    b.record(late, d2h);  // not right after writes_y: a new event is needed
    b.kernel(compute, "reads_y", {y}, {});
    ASSERT_TRUE(b.finish().ok());
    ASSERT_TRUE(writer->close().ok());
  }
  auto r = race::check_file(path, race::CheckOptions{});
  ASSERT_TRUE(r.ok()) << r.error().describe();
  ASSERT_EQ(r->groups.size(), 2u);
  const auto edits = race::fix_edits(*r);
  ASSERT_EQ(edits.size(), 2u);
  EXPECT_EQ(
      std::count_if(edits.begin(), edits.end(), [](const race::FixEdit& e) { return e.existing_event; }), 1);
  EXPECT_TRUE(r->fixes_verified);
  ASSERT_TRUE(race::write_fixed_trace(path, fixed, edits).ok());
  auto trace = load_trace(fixed);
  ASSERT_TRUE(trace.ok()) << trace.error().describe();
  EXPECT_EQ(validation_errors(*trace), std::vector<std::string>{});
  auto again = load_trace(path);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(trace->ops_size(), again->ops_size() + 3);  // one wait, one record + wait
  EXPECT_EQ(trace->events_size(), again->events_size() + 1);
  // The record of "late" still names the event called "late".
  TraceTables tables;
  tables.add(*trace);
  int late_records = 0;
  for (const v1::Op& op : trace->ops())
    if (op.has_record() && tables.event_label(op.record().event()) == "late") ++late_records;
  EXPECT_EQ(late_records, 1);
  auto clean = race::check_file(fixed, keep_all_options());
  ASSERT_TRUE(clean.ok());
  EXPECT_TRUE(clean->all.empty()) << to_string(hazard_set(*clean));
}

// The samples whose offload or onload stream records its event right after
// the copy: the fix names that event, and the fixed trace checks clean.
TEST(ExistingEventFix, SamplesReuseTheirOwnEvents) {
  TempDir dir;
  for (const auto& [file, event] : {std::pair{"c1_reload_not_waited.race.pbtxt", "e_off"},
                                    std::pair{"megatron_inline_reload.race.pbtxt", "layer1.offload_event"},
                                    std::pair{"c5_consumer_never_waits.race.pbtxt", "e_r"}}) {
    SCOPED_TRACE(file);
    const std::string path = kSamples + "/" + file;
    auto r = race::check_file(path, race::CheckOptions{});
    ASSERT_TRUE(r.ok()) << r.error().describe();
    ASSERT_FALSE(r->groups.empty());
    const race::HazardGroup& g = r->groups.front();
    EXPECT_NE(g.fix.text.find(std::string("wait on ") + event + " before"), std::string::npos) << g.fix.text;
    EXPECT_TRUE(g.fix.verified);
    const std::string fixed = dir.path(file);
    ASSERT_TRUE(race::write_fixed_trace(path, fixed, race::fix_edits(*r)).ok());
    auto original = load_trace(path);
    auto rewritten = load_trace(fixed);
    ASSERT_TRUE(original.ok() && rewritten.ok());
    EXPECT_EQ(rewritten->events_size(), original->events_size()) << "no new event";
    auto again = race::check_file(fixed, keep_all_options());
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(again->all.empty()) << to_string(hazard_set(*again));
  }
}

}  // namespace
}  // namespace racetrack::check_test
