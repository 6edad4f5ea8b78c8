// The activity-record decoder over synthetic CUPTI records: every kept kind
// round-trips its fields (including values that only fit the wide types),
// the rest is dropped, and BufferRecordSource walks a buffer like CUPTI's.
#include "record_decoder.h"

#include <gmock/gmock.h>

#include <optional>
#include <variant>
#include <vector>

#include "cupti_records.h"

namespace racetrack::capture {
namespace {

namespace rec = cupti_records;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

// Timestamps above 2^62, as CLOCK_REALTIME ns will never reach but the int64
// conversion must carry.
constexpr uint64_t kLateStart = (uint64_t{1} << 62) + 123;
constexpr uint64_t kLateEnd = kLateStart + 4567;
constexpr uint64_t kHighAddress = 0x7fa7'13e0'0000;
constexpr uint64_t kManyBytes = (uint64_t{5} << 32) + 7;  // 20 GiB: does not fit 32 bits
constexpr uint64_t kLargeSyncId = (uint64_t{1} << 40) + 3;

// The decoded record when it has type Out, else nullopt.
template <typename Out, typename Record>
std::optional<Out> decode_as(const Record& record) {
  const std::optional<DeviceRecord> decoded = decode_record(rec::as_activity(record));
  if (!decoded.has_value() || !std::holds_alternative<Out>(*decoded)) return std::nullopt;
  return std::get<Out>(*decoded);
}

TEST(EnabledActivityKinds, AreTheTracedKindsWithConcurrentKernelFirst) {
  const std::span<const CUpti_ActivityKind> kinds = enabled_activity_kinds();
  ASSERT_FALSE(kinds.empty());
  EXPECT_EQ(kinds.front(), CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  // Never RUNTIME/DRIVER (thousands of records per step) nor MARKER (NVTX
  // comes through callbacks).
  EXPECT_THAT(std::vector(kinds.begin(), kinds.end()),
              UnorderedElementsAre(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                   CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET,
                                   CUPTI_ACTIVITY_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_MEMORY_POOL,
                                   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_CUDA_EVENT,
                                   CUPTI_ACTIVITY_KIND_STREAM));
}

TEST(DecodeRecord, KernelKeepsEveryField) {
  CUpti_ActivityKernel10 k = rec::kernel(4242, 13, kLateStart, kLateEnd, "_Z4axpyPfPKfif");
  k.deviceId = 3;
  k.contextId = 9;
  k.gridX = 1024;
  k.gridY = 2;
  k.gridZ = 3;
  k.blockX = 256;
  k.blockY = 4;
  k.blockZ = 1;
  k.graphId = 77;
  k.graphNodeId = uint64_t{2} << 32;  // exec node ids live above 2^32

  const std::optional<KernelRecord> out = decode_as<KernelRecord>(k);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->correlation, 4242u);
  EXPECT_EQ(out->device, 3u);
  EXPECT_EQ(out->context_id, 9u);
  EXPECT_EQ(out->stream_id, 13u);
  EXPECT_EQ(out->start, static_cast<int64_t>(kLateStart));
  EXPECT_EQ(out->end, static_cast<int64_t>(kLateEnd));
  EXPECT_THAT(out->grid, ElementsAre(1024u, 2u, 3u));
  EXPECT_THAT(out->block, ElementsAre(256u, 4u, 1u));
  EXPECT_EQ(out->graph_id, 77u);
  EXPECT_EQ(out->graph_node_id, uint64_t{2} << 32);
  EXPECT_EQ(out->name, "_Z4axpyPfPKfif");
}

TEST(DecodeRecord, KernelWithoutANameGetsAnEmptyOne) {
  const std::optional<KernelRecord> out = decode_as<KernelRecord>(rec::kernel(5, 7, 100, 200, nullptr));
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->correlation, 5u);
  EXPECT_TRUE(out->name.empty());
}

TEST(DecodeRecord, MemcpyKeepsKindsBytesAndAsync) {
  CUpti_ActivityMemcpy6 c =
      rec::memcpy(31, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                  CUPTI_ACTIVITY_MEMORY_KIND_PINNED, kManyBytes, true);
  c.start = kLateStart;
  c.end = kLateEnd;
  c.deviceId = 1;
  c.contextId = 2;
  c.streamId = 14;
  c.graphId = 8;
  c.graphNodeId = (uint64_t{1} << 33) + 1;

  const std::optional<CopyRecord> out = decode_as<CopyRecord>(c);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->correlation, 31u);
  EXPECT_EQ(out->device, 1u);
  EXPECT_EQ(out->context_id, 2u);
  EXPECT_EQ(out->stream_id, 14u);
  EXPECT_EQ(out->start, static_cast<int64_t>(kLateStart));
  EXPECT_EQ(out->end, static_cast<int64_t>(kLateEnd));
  EXPECT_EQ(out->bytes, kManyBytes);
  EXPECT_EQ(out->copy_kind, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
  EXPECT_EQ(out->src_kind, MemoryKind::kDevice);
  EXPECT_EQ(out->dst_kind, MemoryKind::kPinned);
  EXPECT_TRUE(out->async);
  EXPECT_FALSE(out->peer);
  EXPECT_EQ(out->graph_id, 8u);
  EXPECT_EQ(out->graph_node_id, (uint64_t{1} << 33) + 1);
}

TEST(DecodeRecord, SynchronousPageableMemcpyIsNotAsync) {
  // `.cpu()`: D2H into pageable memory, the copy that blocks the host.
  const std::optional<CopyRecord> out =
      decode_as<CopyRecord>(rec::memcpy(6, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                                        CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, 1728, false));
  ASSERT_TRUE(out.has_value());
  EXPECT_FALSE(out->async);
  EXPECT_EQ(out->dst_kind, MemoryKind::kPageable);
  EXPECT_EQ(out->bytes, 1728u);
}

TEST(DecodeRecord, PeerMemcpyKeepsBothDevices) {
  CUpti_ActivityMemcpyPtoP4 p{};
  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  p.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
  p.bytes = kManyBytes;
  p.start = kLateStart;
  p.end = kLateEnd;
  p.deviceId = 0;
  p.contextId = 4;
  p.streamId = 21;
  p.srcDeviceId = 2;
  p.dstDeviceId = 5;
  p.correlationId = 900;
  p.graphId = 3;
  p.graphNodeId = 11;

  const std::optional<CopyRecord> out = decode_as<CopyRecord>(p);
  ASSERT_TRUE(out.has_value());
  EXPECT_TRUE(out->peer);
  EXPECT_EQ(out->src_device, 2u);
  EXPECT_EQ(out->dst_device, 5u);
  EXPECT_EQ(out->correlation, 900u);
  EXPECT_EQ(out->context_id, 4u);
  EXPECT_EQ(out->stream_id, 21u);
  EXPECT_EQ(out->copy_kind, CUPTI_ACTIVITY_MEMCPY_KIND_PTOP);
  EXPECT_EQ(out->src_kind, MemoryKind::kDevice);
  EXPECT_EQ(out->dst_kind, MemoryKind::kDevice);
  EXPECT_TRUE(out->async);
  EXPECT_EQ(out->bytes, kManyBytes);
  EXPECT_EQ(out->start, static_cast<int64_t>(kLateStart));
  EXPECT_EQ(out->end, static_cast<int64_t>(kLateEnd));
  EXPECT_EQ(out->graph_id, 3u);
  EXPECT_EQ(out->graph_node_id, 11u);
}

TEST(DecodeRecord, MemsetKeepsValueKindAndAsync) {
  CUpti_ActivityMemset4 m = rec::memset(57, kManyBytes, 0xABu, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, true);
  m.start = kLateStart;
  m.end = kLateEnd;
  m.deviceId = 2;
  m.contextId = 6;
  m.streamId = 15;
  m.graphId = 4;
  m.graphNodeId = uint64_t{3} << 32;

  const std::optional<MemsetRecord> out = decode_as<MemsetRecord>(m);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->correlation, 57u);
  EXPECT_EQ(out->device, 2u);
  EXPECT_EQ(out->context_id, 6u);
  EXPECT_EQ(out->stream_id, 15u);
  EXPECT_EQ(out->start, static_cast<int64_t>(kLateStart));
  EXPECT_EQ(out->end, static_cast<int64_t>(kLateEnd));
  EXPECT_EQ(out->bytes, kManyBytes);
  EXPECT_EQ(out->value, 0xABu);
  EXPECT_EQ(out->memory_kind, MemoryKind::kDevice);
  EXPECT_TRUE(out->async);
  EXPECT_EQ(out->graph_id, 4u);
  EXPECT_EQ(out->graph_node_id, uint64_t{3} << 32);

  const std::optional<MemsetRecord> sync_out =
      decode_as<MemsetRecord>(rec::memset(58, 16, 0, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED, false));
  ASSERT_TRUE(sync_out.has_value());
  EXPECT_FALSE(sync_out->async);
  EXPECT_EQ(sync_out->memory_kind, MemoryKind::kManaged);
}

TEST(DecodeRecord, StreamOrderedAllocationKeepsPoolAndStream) {
  // cudaMallocAsync: op 1, isAsync, local pool, stream set.
  CUpti_ActivityMemory4 m = rec::memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION,
                                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, kHighAddress, kManyBytes, 88, 13);
  m.timestamp = kLateStart;
  m.deviceId = 1;
  m.contextId = 3;

  const std::optional<MemoryRecord> out = decode_as<MemoryRecord>(m);
  ASSERT_TRUE(out.has_value());
  EXPECT_FALSE(out->release);
  EXPECT_EQ(out->memory_kind, MemoryKind::kDevice);
  EXPECT_EQ(out->address, kHighAddress);
  EXPECT_EQ(out->bytes, kManyBytes);
  EXPECT_EQ(out->correlation, 88u);
  EXPECT_EQ(out->stream_id, 13u);
  EXPECT_EQ(out->timestamp, static_cast<int64_t>(kLateStart));
  EXPECT_EQ(out->device, 1u);
  EXPECT_EQ(out->context_id, 3u);
  EXPECT_TRUE(out->async);
  EXPECT_EQ(out->pool_type, CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL);
}

TEST(DecodeRecord, SynchronousReleaseHasNoStreamNorPool) {
  const std::optional<MemoryRecord> out = decode_as<MemoryRecord>(
      rec::memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                  0xffff'8000'0000'1000, 4096, 90, CUPTI_INVALID_STREAM_ID));
  ASSERT_TRUE(out.has_value());
  EXPECT_TRUE(out->release);
  EXPECT_EQ(out->memory_kind, MemoryKind::kPinned);
  EXPECT_EQ(out->address, 0xffff'8000'0000'1000u);
  EXPECT_EQ(out->stream_id, CUPTI_INVALID_STREAM_ID);
  EXPECT_FALSE(out->async);
  EXPECT_EQ(out->pool_type, 0);
}

TEST(DecodeRecord, ModuleLoadStaticMemoryHasCorrelationZero) {
  // Lazy module loading reports globals as DEVICE_STATIC allocations, corr 0.
  const std::optional<MemoryRecord> out = decode_as<MemoryRecord>(
      rec::memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC,
                  0x7f00'0020'0000, 512, 0, CUPTI_INVALID_STREAM_ID));
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->memory_kind, MemoryKind::kDeviceStatic);
  EXPECT_EQ(out->correlation, 0u);
  EXPECT_FALSE(out->release);
  EXPECT_EQ(out->address, 0x7f00'0020'0000u);
}

TEST(DecodeRecord, StreamWaitEventKeepsWaitingStreamEventAndSyncId) {
  CUpti_ActivitySynchronization2 s =
      rec::sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, 301, 2, kLargeSyncId, 0, 14);
  s.start = kLateStart;
  s.end = kLateEnd;
  s.contextId = 1;

  const std::optional<SyncRecord> out = decode_as<SyncRecord>(s);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->type, SyncType::kStreamWaitEvent);
  EXPECT_EQ(out->correlation, 301u);
  EXPECT_EQ(out->context_id, 1u);
  EXPECT_EQ(out->stream_id, 14u);
  EXPECT_EQ(out->event_id, 2u);
  EXPECT_EQ(out->sync_id, kLargeSyncId);
  EXPECT_EQ(out->return_value, 0);
  EXPECT_EQ(out->start, static_cast<int64_t>(kLateStart));
  EXPECT_EQ(out->end, static_cast<int64_t>(kLateEnd));
}

TEST(DecodeRecord, BusyEventQueryKeepsNotReady) {
  // cudaEventQuery on a busy event: an EVENT_SYNCHRONIZE record returning 600.
  const std::optional<SyncRecord> out =
      decode_as<SyncRecord>(rec::sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, 410, 5, 9, 600,
                                      CUPTI_SYNCHRONIZATION_INVALID_VALUE));
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->type, SyncType::kEventSynchronize);
  EXPECT_EQ(out->return_value, 600);
  EXPECT_EQ(out->event_id, 5u);
  EXPECT_EQ(out->sync_id, 9u);
}

TEST(DecodeRecord, InapplicableSyncFieldsTakeTheDefaults) {
  // cudaDeviceSynchronize: no stream, no event, no event record.
  const std::optional<SyncRecord> out = decode_as<SyncRecord>(rec::sync(
      CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, 500, CUPTI_SYNCHRONIZATION_INVALID_VALUE,
      CUPTI_SYNCHRONIZATION_INVALID_VALUE, 0, CUPTI_SYNCHRONIZATION_INVALID_VALUE));
  ASSERT_TRUE(out.has_value());
  const SyncRecord defaults;
  EXPECT_EQ(out->type, SyncType::kContextSynchronize);
  EXPECT_EQ(out->stream_id, defaults.stream_id);
  EXPECT_EQ(out->event_id, defaults.event_id);
  EXPECT_EQ(out->sync_id, 0u);

  // The 64-bit sync id may carry the marker at full width.
  const std::optional<SyncRecord> wide =
      decode_as<SyncRecord>(rec::sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 501,
                                      CUPTI_SYNCHRONIZATION_INVALID_VALUE, UINT64_MAX, 0, 13));
  ASSERT_TRUE(wide.has_value());
  EXPECT_EQ(wide->type, SyncType::kStreamSynchronize);
  EXPECT_EQ(wide->sync_id, 0u);
  EXPECT_EQ(wide->stream_id, 13u);
}

TEST(DecodeRecord, UnknownEnumValuesBecomeUnknown) {
  CUpti_ActivitySynchronization2 s =
      rec::sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 1, 0, 0, 0, 0);
  s.type = static_cast<CUpti_ActivitySynchronizationType>(42);
  const std::optional<SyncRecord> sync_out = decode_as<SyncRecord>(s);
  ASSERT_TRUE(sync_out.has_value());
  EXPECT_EQ(sync_out->type, SyncType::kUnknown);

  CUpti_ActivityMemcpy6 c = rec::memcpy(2, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                                        CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 8, true);
  c.srcKind = 200;
  const std::optional<CopyRecord> copy_out = decode_as<CopyRecord>(c);
  ASSERT_TRUE(copy_out.has_value());
  EXPECT_EQ(copy_out->src_kind, MemoryKind::kUnknown);
  EXPECT_EQ(copy_out->dst_kind, MemoryKind::kDevice);
}

TEST(DecodeRecord, CudaEventKeepsEventSyncIdAndDeviceTimestamp) {
  CUpti_ActivityCudaEvent2 e = rec::cuda_event(178, 2, kLargeSyncId, 13);
  e.contextId = 1;
  e.deviceId = 6;
  e.deviceTimestamp = kLateEnd;

  const std::optional<EventRecordRecord> out = decode_as<EventRecordRecord>(e);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->correlation, 178u);
  EXPECT_EQ(out->event_id, 2u);
  EXPECT_EQ(out->sync_id, kLargeSyncId);
  EXPECT_EQ(out->stream_id, 13u);
  EXPECT_EQ(out->context_id, 1u);
  EXPECT_EQ(out->device, 6u);
  EXPECT_EQ(out->device_timestamp, static_cast<int64_t>(kLateEnd));
}

TEST(DecodeRecord, StreamKeepsFlagAndNegativePriority) {
  CUpti_ActivityStream s = rec::stream(1, 20, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING, -3);
  s.correlationId = 64;

  const std::optional<StreamRecord> out = decode_as<StreamRecord>(s);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->context_id, 1u);
  EXPECT_EQ(out->stream_id, 20u);
  EXPECT_EQ(out->flag, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING);
  EXPECT_EQ(out->priority, -3);
  EXPECT_EQ(out->correlation, 64u);
}

TEST(DecodeRecord, KindsOutsideTheTraceAreDropped) {
  CUpti_ActivityOverhead3 overhead{};
  overhead.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  EXPECT_FALSE(decode_record(rec::as_activity(overhead)).has_value());

  CUpti_ActivityMemoryPool3 pool{};
  pool.kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL;
  EXPECT_FALSE(decode_record(rec::as_activity(pool)).has_value());

  // KIND_KERNEL shares the kernel layout but is never enabled: it serialises kernels.
  CUpti_ActivityKernel10 serial = rec::kernel(1, 7, 10, 20, "k");
  serial.kind = CUPTI_ACTIVITY_KIND_KERNEL;
  EXPECT_FALSE(decode_record(rec::as_activity(serial)).has_value());

  CUpti_ActivityMarker2 marker{};
  marker.kind = CUPTI_ACTIVITY_KIND_MARKER;
  EXPECT_FALSE(decode_record(rec::as_activity(marker)).has_value());

  CUpti_ActivityOverhead3 invalid{};  // kind 0: INVALID
  EXPECT_FALSE(decode_record(rec::as_activity(invalid)).has_value());
}

TEST(DecodeRecord, KeepsMissingAndInvertedTimestamps) {
  // Starved device buffers yield start = end = 0 or end < start; the
  // assembler judges them, the decoder passes them on.
  const std::optional<KernelRecord> inverted = decode_as<KernelRecord>(rec::kernel(3, 7, 5000, 4000, "k"));
  ASSERT_TRUE(inverted.has_value());
  EXPECT_EQ(inverted->start, 5000);
  EXPECT_EQ(inverted->end, 4000);

  const std::optional<KernelRecord> missing = decode_as<KernelRecord>(rec::kernel(4, 7, 0, 0, "k"));
  ASSERT_TRUE(missing.has_value());
  EXPECT_EQ(missing->start, 0);
  EXPECT_EQ(missing->end, 0);
  EXPECT_EQ(missing->correlation, 4u);

  CUpti_ActivityMemcpy6 copy =
      rec::memcpy(5, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                  CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, 64, true);
  copy.start = 9000;
  copy.end = 10;
  const std::optional<CopyRecord> copy_out = decode_as<CopyRecord>(copy);
  ASSERT_TRUE(copy_out.has_value());
  EXPECT_EQ(copy_out->start, 9000);
  EXPECT_EQ(copy_out->end, 10);
}

// Everything a source yields, until it runs dry.
std::vector<const CUpti_Activity*> drain(RecordSource& source) {
  std::vector<const CUpti_Activity*> records;
  while (const CUpti_Activity* record = source.next()) records.push_back(record);
  return records;
}

TEST(BufferRecordSource, YieldsEachRecordThenStopsAtTheEnd) {
  rec::ActivityBuffer buffer;
  buffer.add(rec::kernel(1, 13, 100, 200, "first"))
      .add(rec::memcpy(2, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                       CUPTI_ACTIVITY_MEMORY_KIND_DEVICE, kManyBytes, true))
      .add(rec::stream(1, 13, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT, 0));
  BufferRecordSource source(rec::next_record, buffer.data(), buffer.valid_size());

  const std::vector<const CUpti_Activity*> records = drain(source);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0]->kind, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  EXPECT_EQ(records[1]->kind, CUPTI_ACTIVITY_KIND_MEMCPY);
  EXPECT_EQ(records[2]->kind, CUPTI_ACTIVITY_KIND_STREAM);
  EXPECT_FALSE(source.failed());
  EXPECT_EQ(source.error(), CUPTI_SUCCESS);
  EXPECT_EQ(source.next(), nullptr);  // stays at the end

  // The records decode in place.
  const std::optional<DeviceRecord> copy = decode_record(*records[1]);
  ASSERT_TRUE(copy.has_value());
  ASSERT_TRUE(std::holds_alternative<CopyRecord>(*copy));
  EXPECT_EQ(std::get<CopyRecord>(*copy).bytes, kManyBytes);
  EXPECT_EQ(std::get<KernelRecord>(*decode_record(*records[0])).name, "first");
}

TEST(BufferRecordSource, AnEmptyBufferYieldsNothingAndIsNotAFailure) {
  rec::ActivityBuffer buffer;
  BufferRecordSource source(rec::next_record, buffer.data(), buffer.valid_size());
  EXPECT_EQ(source.next(), nullptr);
  EXPECT_FALSE(source.failed());
}

TEST(BufferRecordSource, AnErrorMidBufferStopsTheWalkAndIsRemembered) {
  CUpti_ActivityOverhead3 corrupt{};  // kind 0: the walker reports INVALID_KIND
  rec::ActivityBuffer buffer;
  buffer.add(rec::cuda_event(7, 2, 3, 13)).add(corrupt).add(rec::kernel(8, 13, 1, 2, "never reached"));
  BufferRecordSource source(rec::next_record, buffer.data(), buffer.valid_size());

  const std::vector<const CUpti_Activity*> records = drain(source);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]->kind, CUPTI_ACTIVITY_KIND_CUDA_EVENT);
  EXPECT_TRUE(source.failed());
  EXPECT_EQ(source.error(), CUPTI_ERROR_INVALID_KIND);
  EXPECT_EQ(source.next(), nullptr);
}

TEST(BufferRecordSource, ACutOffLastRecordIsAFailure) {
  rec::ActivityBuffer buffer;
  buffer.add(rec::stream(1, 13, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT, 0))
      .add(rec::kernel(9, 13, 1, 2, "cut"));
  // CUPTI said fewer bytes are valid than the kernel record needs.
  BufferRecordSource source(rec::next_record, buffer.data(), buffer.valid_size() - 8);

  EXPECT_EQ(drain(source).size(), 1u);
  EXPECT_TRUE(source.failed());
}

}  // namespace
}  // namespace racetrack::capture
