// The trace assembler's core: one op per executed call in seq order, runtime
// and driver halves merged, records joined in any arrival order, ops held for
// their records and released on timeout, stream and event identities, syncs
// and queries, and a file that stays readable when the capture is killed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "assembler_test_support.h"

namespace racetrack::capture::testing {
namespace {

using racetrack::testing::TempDir;
using ::testing::ElementsAre;

TEST(TraceAssembler, RuntimeAndDriverLaunchAreOneOpWithTheDriverWords) {
  FakeProgram p;
  const uint64_t correlation = p.launch(user_stream(0), {0x7000, 42}, "_Z4axpyPfS_");
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));

  ASSERT_EQ(a.trace.ops_size(), 1);
  const v1::Op& op = a.trace.ops(0);
  ASSERT_TRUE(op.has_kernel());
  EXPECT_EQ(op.seq(), 1u);
  EXPECT_EQ(op.correlation_id(), correlation);
  EXPECT_THAT(op.kernel().arg_words(), ElementsAre(0x7000u, 42u));
  EXPECT_EQ(string_of(a.trace, op.kernel().name()), "_Z4axpyPfS_");
  EXPECT_THAT(op.kernel().grid(), ElementsAre(4u, 0u, 0u));
  // Host times are the runtime call's, relative to the first event.
  EXPECT_EQ(op.host_start(), 0);
  EXPECT_EQ(op.host_end(), 1000);
  ASSERT_TRUE(op.has_device_start());
  EXPECT_EQ(op.device_start(), 6000);
  EXPECT_EQ(op.device_end(), 26000);
  EXPECT_EQ(a.stats.merged_nested_calls, 1u);
  EXPECT_EQ(a.stats.api_events, 2u);
  EXPECT_EQ(a.stats.ops_written, 1u);

  const v1::Header& h = a.trace.header();
  EXPECT_EQ(h.format_version(), kFormatVersion);
  EXPECT_EQ(h.clock_domain(), v1::CLOCK_DOMAIN_REALTIME);
  EXPECT_EQ(h.time_origin_ns(), kStart);
  EXPECT_EQ(h.producer(), "racetrack-capture test");
  ASSERT_EQ(a.trace.threads_size(), 1);
  EXPECT_EQ(a.trace.threads(0).os_tid(), kMainThread);
  EXPECT_EQ(string_of(a.trace, a.trace.threads(0).name()), "thread 4000");
}

TEST(TraceAssembler, AProgrammaticLaunchKeepsItsAttribute) {
  FakeProgram p;
  p.launch(user_stream(0), {1}, "primary");
  p.launch(user_stream(0), {2}, "secondary");
  // The decoder flags the driver call (cuLaunchKernelEx's attribute list).
  p.events[p.events.size() - 2].event.flags |= kFlagProgrammatic;
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 2);
  EXPECT_FALSE(a.trace.ops(0).kernel().programmatic_stream_serialization());
  EXPECT_TRUE(a.trace.ops(1).kernel().programmatic_stream_serialization());
}

TEST(TraceAssembler, AProgrammaticEventIsTheEventItsHandleNames) {
  FakeProgram p;
  p.event_record(user_stream(1), 0xE7, 0);
  p.launch(user_stream(0), {1}, "primary");
  // The decoder puts the attribute's event handle on the driver call.
  p.events[p.events.size() - 2].event.event = 0xE7;
  p.events[p.events.size() - 2].event.flags |= kFlagProgrammaticEventAtBlockStart;
  p.launch(user_stream(0), {2}, "plain");
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 3);
  const uint32_t event = a.trace.ops(0).record().event();
  ASSERT_NE(event, 0u);
  EXPECT_EQ(a.trace.ops(1).kernel().programmatic_event(), event);
  EXPECT_TRUE(a.trace.ops(1).kernel().programmatic_event_at_block_start());
  EXPECT_EQ(a.trace.ops(2).kernel().programmatic_event(), 0u);
  EXPECT_FALSE(a.trace.ops(2).kernel().programmatic_event_at_block_start());
}

TEST(TraceAssembler, ALaunchWithoutItsRecordIsNamedByHandle) {
  FakeProgram p;
  p.launch(kLegacy, {1}, "k", /*with_record=*/false);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 1);
  EXPECT_EQ(string_of(a.trace, a.trace.ops(0).kernel().name()), "kernel@0xf00");
  EXPECT_FALSE(a.trace.ops(0).has_device_start());
  EXPECT_EQ(a.stats.ops_without_record, 1u);
}

// A program using most op kinds, for order-independence.
FakeProgram mixed_program() {
  FakeProgram p;
  const FakeStream compute = user_stream(0), offload = user_stream(1);
  p.alloc(ApiKind::kMalloc, 0x10000, 4096);
  p.alloc(ApiKind::kHostAlloc, 0x90000, 4096);
  p.launch(compute, {0x10000}, "fwd");
  p.event_record(compute, 0xE1, 11);
  p.stream_wait(offload, 0xE1, 11);
  p.memcpy(offload, 0x90000, 0x10000, 4096, 2, MemoryKind::kPinned, MemoryKind::kDevice);
  p.event_record(offload, 0xE2, 12);
  p.call(ApiKind::kEventQuery).event = 0xE2;
  p.launch(compute, {0x10000, 7}, "bwd");
  p.call(ApiKind::kEventSync).event = 0xE2;
  p.call(ApiKind::kDeviceSync);
  p.alloc(ApiKind::kFree, 0x10000, 0);
  return p;
}

TEST(TraceAssembler, RecordsInAnyOrderGiveTheSameTrace) {
  const FakeProgram p = mixed_program();
  TempDir dir;
  const Assembled in_order = assemble(p, dir.path("in_order.rtrace"));
  ASSERT_EQ(in_order.trace.ops_size(), 12);
  EXPECT_EQ(in_order.stats.ops_without_record, 0u);
  EXPECT_EQ(in_order.stats.unmatched_records, 0u);
  for (uint64_t seed : {1, 2, 3, 4, 5, 6, 7, 8}) {
    const Assembled shuffled = assemble(p, dir.path("shuffled.rtrace"), seed);
    EXPECT_EQ(shuffled.trace.SerializeAsString(), in_order.trace.SerializeAsString()) << "seed " << seed;
    EXPECT_EQ(shuffled.stats.unmatched_records, 0u) << "seed " << seed;
    EXPECT_EQ(shuffled.stats.ops_without_record, 0u) << "seed " << seed;
  }
}

TEST(TraceAssembler, SeqsAreDenseAndFollowSubmissionOrder) {
  FakeProgram p = mixed_program();
  p.call(ApiKind::kStreamSync, user_stream(0)).result = 1;  // failed: leaves no gap
  p.call(ApiKind::kStreamSync, user_stream(0));
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 13);
  for (int i = 0; i < a.trace.ops_size(); ++i) EXPECT_EQ(a.trace.ops(i).seq(), static_cast<uint64_t>(i + 1));
  for (int i = 1; i < a.trace.ops_size(); ++i)
    EXPECT_LT(a.trace.ops(i - 1).correlation_id(), a.trace.ops(i).correlation_id());
  EXPECT_EQ(a.stats.failed_calls, 1u);
}

TEST(TraceAssembler, EventRecordAndWaitCarryTheSyncIdOfTheirRecords) {
  FakeProgram p;
  p.event_record(user_stream(0), 0xE1, 3);
  p.stream_wait(user_stream(1), 0xE1, 3);
  p.event_record(user_stream(2), 0xE1, 4);  // re-recorded elsewhere
  p.stream_wait(user_stream(0), 0xE1, 4);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"), 3);
  const auto records = ops_of(a.trace, v1::Op::kRecord);
  const auto waits = ops_of(a.trace, v1::Op::kWait);
  ASSERT_EQ(records.size(), 2u);
  ASSERT_EQ(waits.size(), 2u);
  EXPECT_EQ(records[0]->record().sync_id(), 3u);
  EXPECT_EQ(waits[0]->wait().sync_id(), 3u);
  EXPECT_EQ(records[1]->record().sync_id(), 4u);
  EXPECT_EQ(waits[1]->wait().sync_id(), 4u);
  EXPECT_EQ(records[0]->record().event(), waits[1]->wait().event());  // one event, one generation
  EXPECT_EQ(a.trace.events_size(), 1);
  EXPECT_NE(waits[0]->stream(), records[0]->stream());
}

TEST(TraceAssembler, DestroyedEventHandlesStartANewEvent) {
  FakeProgram p;
  p.event_record(user_stream(0), 0xE1, 1);
  p.call(ApiKind::kEventDestroy).event = 0xE1;
  p.event_record(user_stream(0), 0xE1, 2);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto records = ops_of(a.trace, v1::Op::kRecord);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_NE(records[0]->record().event(), records[1]->record().event());
  EXPECT_EQ(a.trace.ops_size(), 2);
}

TEST(TraceAssembler, QueriesSayReadyOrNotAndFailedCallsAreDropped) {
  FakeProgram p;
  p.call(ApiKind::kEventQuery).event = 0xE1;  // ready
  ApiEvent& busy = p.call(ApiKind::kEventQuery);
  busy.event = 0xE1;
  busy.result = 600;
  ApiEvent& stream_busy = p.call(ApiKind::kStreamQuery, user_stream(0));
  stream_busy.result = 600;
  p.call(ApiKind::kStreamQuery, user_stream(0)).result = 0;
  p.call(ApiKind::kEventQuery).result = 400;  // invalid handle: not a query answer
  p.memcpy(kLegacy, 0x10, 0x20, 8, 3, MemoryKind::kDevice, MemoryKind::kDevice);
  p.events.back().event.result = 700;  // a failed copy: it ran nothing
  p.records.pop_back();
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto queries = ops_of(a.trace, v1::Op::kQuery);
  ASSERT_EQ(queries.size(), 4u);
  EXPECT_TRUE(queries[0]->query().ready());
  EXPECT_EQ(queries[0]->query().kind(), v1::QUERY_EVENT);
  EXPECT_FALSE(queries[1]->query().ready());
  EXPECT_EQ(queries[0]->query().event(), queries[1]->query().event());
  EXPECT_EQ(queries[2]->query().kind(), v1::QUERY_STREAM);
  EXPECT_FALSE(queries[2]->query().ready());
  EXPECT_NE(queries[2]->stream(), 0u);
  EXPECT_TRUE(queries[3]->query().ready());
  EXPECT_EQ(a.trace.ops_size(), 4);
  EXPECT_EQ(a.stats.failed_calls, 2u);
}

TEST(TraceAssembler, SynchronisationsBecomeSyncOps) {
  FakeProgram p;
  p.call(ApiKind::kEventSync).event = 0xE1;
  p.call(ApiKind::kStreamSync, user_stream(3));
  p.call(ApiKind::kDeviceSync);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 3);
  EXPECT_EQ(a.trace.ops(0).sync().kind(), v1::SYNC_EVENT);
  EXPECT_EQ(a.trace.ops(0).stream(), 0u);
  EXPECT_NE(a.trace.ops(0).sync().event(), 0u);
  EXPECT_EQ(a.trace.ops(1).sync().kind(), v1::SYNC_STREAM);
  EXPECT_EQ(a.trace.streams(a.trace.ops(1).stream() - 1).native_id(), 16u);
  EXPECT_EQ(a.trace.ops(2).sync().kind(), v1::SYNC_DEVICE);
}

TEST(TraceAssembler, StreamFlagsFollowHandlesCreationAndRecords) {
  FakeProgram p;
  const FakeStream nb = user_stream(1), blocking = user_stream(2), seen = user_stream(3),
                   unknown = user_stream(4);
  ApiEvent& create_nb = p.call(ApiKind::kStreamCreate, nb);
  create_nb.value = 1;  // cudaStreamNonBlocking
  create_nb.priority = -2;
  p.call(ApiKind::kStreamCreate, blocking).value = 0;
  StreamRecord record;
  record.context_id = kContext;
  record.stream_id = seen.id;
  record.flag = 2;
  p.records.push_back(record);
  p.call(ApiKind::kStreamSync, kLegacy);
  p.call(ApiKind::kStreamSync, {0x1, 7});                              // cudaStreamLegacy: the same stream
  p.call(ApiKind::kStreamSync, {0x2, 20});                             // cudaStreamPerThread
  p.call(ApiKind::kStreamSync, {0, 20}).flags = kFlagPerThreadStream;  // a _ptsz call
  p.call(ApiKind::kStreamSync, nb);
  p.call(ApiKind::kStreamSync, blocking);
  p.call(ApiKind::kStreamSync, seen);
  p.call(ApiKind::kStreamSync, unknown);
  TempDir dir;
  // The STREAM record of a stream made out of sight came before its first use.
  const Assembled a = assemble(p, dir.path("t.rtrace"), kRecordsFirst);
  ASSERT_EQ(a.trace.ops_size(), 8);
  auto stream_of = [&](int op) { return a.trace.streams(static_cast<int>(a.trace.ops(op).stream()) - 1); };
  EXPECT_EQ(stream_of(0).flags(), v1::STREAM_LEGACY_DEFAULT);
  EXPECT_EQ(string_of(a.trace, stream_of(0).name()), "default");
  EXPECT_EQ(stream_of(0).native_id(), 7u);
  EXPECT_EQ(a.trace.ops(1).stream(), a.trace.ops(0).stream());
  EXPECT_EQ(stream_of(2).flags(), v1::STREAM_PER_THREAD_DEFAULT);
  EXPECT_EQ(string_of(a.trace, stream_of(2).name()), "per-thread default");
  EXPECT_EQ(a.trace.ops(3).stream(), a.trace.ops(2).stream());
  EXPECT_EQ(stream_of(4).flags(), v1::STREAM_NON_BLOCKING);
  EXPECT_EQ(stream_of(4).priority(), -2);
  EXPECT_EQ(string_of(a.trace, stream_of(4).name()), "stream 14");
  EXPECT_EQ(stream_of(5).flags(), v1::STREAM_BLOCKING);
  EXPECT_EQ(stream_of(6).flags(), v1::STREAM_NON_BLOCKING);  // from its STREAM record
  EXPECT_EQ(stream_of(7).flags(), v1::STREAM_BLOCKING);
  EXPECT_EQ(a.trace.streams_size(), 6);
}

TEST(TraceAssembler, PerThreadDefaultStreamsAreOnePerThread) {
  FakeProgram p;
  p.call(ApiKind::kStreamSync, {0x2, 20});
  p.tid = kMainThread + 1;
  p.call(ApiKind::kStreamSync, {0x2, 21});
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 2);
  EXPECT_NE(a.trace.ops(0).stream(), a.trace.ops(1).stream());
  EXPECT_NE(a.trace.ops(0).thread(), a.trace.ops(1).thread());
  EXPECT_EQ(a.trace.threads_size(), 2);
}

TEST(TraceAssembler, ADestroyedStreamHandleStartsANewStream) {
  FakeProgram p;
  const FakeStream s = user_stream(0);
  p.call(ApiKind::kStreamCreate, s).value = 1;
  p.call(ApiKind::kStreamSync, s);
  p.call(ApiKind::kStreamDestroy, s);
  p.call(ApiKind::kStreamCreate, s).value = 0;  // the handle is reused
  p.call(ApiKind::kStreamSync, s);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 2);
  ASSERT_EQ(a.trace.streams_size(), 2);
  EXPECT_EQ(a.trace.streams(0).flags(), v1::STREAM_NON_BLOCKING);
  EXPECT_EQ(a.trace.streams(1).flags(), v1::STREAM_BLOCKING);
  EXPECT_EQ(a.trace.ops(1).stream(), 2u);
}

TEST(TraceAssembler, AnUnknownContextIsTakenFromTheRecord) {
  FakeProgram p;
  p.launch(kLegacy, {});
  for (LoggedEvent& e : p.events) e.event.context_id = kNoId;  // the thread's first call
  std::get<KernelRecord>(p.records[0]).context_id = 3;
  std::get<KernelRecord>(p.records[0]).device = 1;
  p.call(ApiKind::kStreamSync, kLegacy).context_id = 3;
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 2);
  EXPECT_EQ(a.trace.ops(0).stream(), a.trace.ops(1).stream());
  EXPECT_EQ(a.trace.streams(0).device(), 1u);
}

// An op waits for its device record until record_wait_ns has passed since
// its call ended, and everything after it waits too.
TEST(TraceAssembler, OpsWaitForTheirRecordThenGoWithout) {
  TempDir dir;
  const std::string path = dir.path("t.rtrace");
  auto writer = TraceWriter::create(path);
  ASSERT_TRUE(writer.ok());
  AssemblerOptions options;
  options.header = test_header();
  options.record_wait_ns = 1'000'000;
  TraceAssembler assembler(*writer, options);
  FakeProgram p;
  p.launch(kLegacy, {9}, "late");
  p.call(ApiKind::kDeviceSync).correlation = 10;
  for (const LoggedEvent& e : p.events) assembler.add_api(e.event, e.payload);
  const int64_t ended = p.events[1].event.host_end;

  ASSERT_TRUE(assembler.advance(4, ended + 1'000'000).ok());
  EXPECT_EQ(assembler.stats().ops_written, 0u);
  ASSERT_TRUE(assembler.advance(4, ended + 1'000'001).ok());
  EXPECT_EQ(assembler.stats().ops_written, 2u);
  EXPECT_EQ(assembler.stats().ops_without_record, 1u);

  // The record comes after all: late, not unmatched. A record of no call
  // is kept a while (its call may still be logged), then dropped.
  assembler.add_record(p.records[0]);
  KernelRecord stray;
  stray.correlation = 5;
  assembler.add_record(stray);
  ASSERT_TRUE(assembler.advance(4, ended + 1'500'000).ok());
  EXPECT_EQ(assembler.stats().unmatched_records, 0u);
  ASSERT_TRUE(assembler.advance(4, ended + 3'000'000).ok());
  EXPECT_EQ(assembler.stats().unmatched_records, 1u);
  EXPECT_EQ(assembler.stats().records, 2u);
  ASSERT_TRUE(writer->close().ok());

  auto trace = load_trace(path);
  ASSERT_TRUE(trace.ok());
  ASSERT_EQ(trace->ops_size(), 2);
  EXPECT_FALSE(trace->ops(0).has_device_start());
  EXPECT_TRUE(trace->ops(1).has_sync());
}

TEST(TraceAssembler, NothingIsWrittenPastAnUnknownSeq) {
  TempDir dir;
  auto writer = TraceWriter::create(dir.path("t.rtrace"));
  ASSERT_TRUE(writer.ok());
  TraceAssembler assembler(*writer, {.header = test_header()});
  FakeProgram p;
  p.call(ApiKind::kDeviceSync);
  p.call(ApiKind::kDeviceSync);
  p.call(ApiKind::kDeviceSync);
  assembler.add_api(p.events[0].event, {});
  assembler.add_api(p.events[2].event, {});
  ASSERT_TRUE(assembler.advance(2, p.now()).ok());
  EXPECT_EQ(assembler.stats().ops_written, 1u);
  ASSERT_TRUE(assembler.advance(3, p.now()).ok());  // seq 3 is not below the promise yet
  EXPECT_EQ(assembler.stats().ops_written, 1u);
  assembler.add_api(p.events[1].event, {});
  ASSERT_TRUE(assembler.advance(4, p.now()).ok());
  EXPECT_EQ(assembler.stats().ops_written, 3u);
}

TEST(TraceAssembler, RecordsWithoutAnyCallAreCountedAsUnmatched) {
  FakeProgram p;
  p.call(ApiKind::kDeviceSync);
  KernelRecord stray;
  stray.correlation = 999;
  p.records.push_back(stray);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  EXPECT_EQ(a.stats.unmatched_records, 1u);
  EXPECT_EQ(a.stats.records, 1u);
  EXPECT_EQ(a.trace.ops_size(), 1);
}

TEST(TraceAssembler, NotesAreMarksAtTheEndOfWhatWasWritten) {
  TempDir dir;
  const std::string path = dir.path("t.rtrace");
  auto writer = TraceWriter::create(path);
  ASSERT_TRUE(writer.ok());
  TraceAssembler assembler(*writer, {.header = test_header()});
  FakeProgram p;
  p.call(ApiKind::kDeviceSync);
  p.call(ApiKind::kDeviceSync);
  for (const LoggedEvent& e : p.events) assembler.add_api(e.event, {});
  ASSERT_TRUE(assembler.advance(2, p.now()).ok());
  assembler.note("CUPTI dropped 12 records", p.now() + 500);
  ASSERT_TRUE(assembler.finish().ok());
  ASSERT_TRUE(writer->close().ok());
  auto trace = load_trace(path);
  ASSERT_TRUE(trace.ok());
  ASSERT_EQ(trace->ops_size(), 3);
  const v1::Op& note = trace->ops(1);
  ASSERT_TRUE(note.has_annotation());
  EXPECT_EQ(note.annotation().kind(), v1::ANNOTATE_MARK);
  EXPECT_EQ(string_of(*trace, note.annotation().text()), "CUPTI dropped 12 records");
  EXPECT_EQ(note.host_start(), p.now() + 500 - kStart);
  EXPECT_EQ(note.thread(), trace->ops(0).thread());
  EXPECT_EQ(assembler.stats().ops_written, 3u);
}

// Each advance flushes: a capture killed mid-frame loses only that frame.
TEST(TraceAssembler, ATruncatedCaptureKeepsEveryCompleteChunk) {
  FakeProgram p;
  for (int i = 0; i < 30; ++i) p.launch(user_stream(i % 2), {static_cast<uint64_t>(i)});
  TempDir dir;
  const std::string path = dir.path("t.rtrace");
  const Assembled whole = assemble(p, path);
  ASSERT_EQ(whole.trace.ops_size(), 30);
  std::string bytes = racetrack::testing::read_bytes(path);
  bytes.resize(bytes.size() - 5);
  racetrack::testing::write_bytes(path, bytes);

  auto loaded = load_trace(path);
  ASSERT_FALSE(loaded.ok());
  ASSERT_TRUE(loaded.error().offset.has_value());
  EXPECT_GT(*loaded.error().offset, kFileHeaderSize);
  EXPECT_LT(*loaded.error().offset, bytes.size());

  auto reader = ChunkReader::open(path);
  ASSERT_TRUE(reader.ok());
  std::vector<uint64_t> seqs;
  v1::Chunk chunk;
  for (;;) {
    auto more = reader->next(chunk);
    if (!more.ok()) {
      EXPECT_EQ(more.error().offset, loaded.error().offset);
      break;
    }
    ASSERT_TRUE(*more) << "the cut file ended cleanly";
    for (const v1::Op& op : chunk.ops()) seqs.push_back(op.seq());
  }
  ASSERT_GE(seqs.size(), 16u);
  ASSERT_LT(seqs.size(), 30u);
  for (size_t i = 0; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], i + 1);
}

}  // namespace
}  // namespace racetrack::capture::testing
