#include "record_decoder.h"

#include <array>

namespace racetrack::capture {
namespace {

// The CUDA 13.0 layout of every field read below. A CUPTI header that moves
// or resizes one breaks the build here rather than the traces.
#define RACETRACK_EXPECT_FIELD(record, field, offset, size) \
  static_assert(offsetof(record, field) == (offset));       \
  static_assert(sizeof(record::field) == (size))

static_assert(sizeof(CUpti_Activity) == 8);
RACETRACK_EXPECT_FIELD(CUpti_Activity, kind, 0, 4);

static_assert(sizeof(CUpti_ActivityKernel10) == 216);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, start, 16, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, end, 24, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, deviceId, 40, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, contextId, 44, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, streamId, 48, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, gridX, 52, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, gridY, 56, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, gridZ, 60, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, blockX, 64, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, blockY, 68, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, blockZ, 72, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, correlationId, 92, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, name, 104, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, graphNodeId, 144, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityKernel10, graphId, 156, 4);

static_assert(sizeof(CUpti_ActivityMemcpy6) == 96);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpy6, copyKind, 4, 1);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpy6, srcKind, 5, 1);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpy6, dstKind, 6, 1);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpy6, flags, 7, 1);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpy6, bytes, 8, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpy6, start, 16, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpy6, end, 24, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpy6, deviceId, 32, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpy6, contextId, 36, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpy6, streamId, 40, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpy6, correlationId, 44, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpy6, graphNodeId, 64, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpy6, graphId, 72, 4);

static_assert(sizeof(CUpti_ActivityMemcpyPtoP4) == 96);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, copyKind, 4, 1);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, srcKind, 5, 1);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, dstKind, 6, 1);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, flags, 7, 1);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, bytes, 8, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, start, 16, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, end, 24, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, deviceId, 32, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, contextId, 36, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, streamId, 40, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, srcDeviceId, 44, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, dstDeviceId, 52, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, correlationId, 60, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, graphNodeId, 72, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemcpyPtoP4, graphId, 80, 4);

static_assert(sizeof(CUpti_ActivityMemset4) == 88);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemset4, value, 4, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemset4, bytes, 8, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemset4, start, 16, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemset4, end, 24, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemset4, deviceId, 32, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemset4, contextId, 36, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemset4, streamId, 40, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemset4, correlationId, 44, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemset4, flags, 48, 2);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemset4, memoryKind, 50, 2);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemset4, graphNodeId, 64, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemset4, graphId, 72, 4);

static_assert(sizeof(CUpti_ActivityMemory4) == 128);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemory4, memoryOperationType, 4, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemory4, memoryKind, 8, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemory4, correlationId, 12, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemory4, address, 16, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemory4, bytes, 24, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemory4, timestamp, 32, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemory4, deviceId, 52, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemory4, contextId, 56, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemory4, streamId, 60, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemory4, isAsync, 72, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityMemory4, memoryPoolConfig.memoryPoolType, 80, 4);

static_assert(sizeof(CUpti_ActivitySynchronization2) == 56);
RACETRACK_EXPECT_FIELD(CUpti_ActivitySynchronization2, type, 4, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivitySynchronization2, start, 8, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivitySynchronization2, end, 16, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivitySynchronization2, correlationId, 24, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivitySynchronization2, contextId, 28, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivitySynchronization2, streamId, 32, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivitySynchronization2, cudaEventId, 36, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivitySynchronization2, cudaEventSyncId, 40, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivitySynchronization2, returnValue, 48, 4);

static_assert(sizeof(CUpti_ActivityCudaEvent2) == 56);
RACETRACK_EXPECT_FIELD(CUpti_ActivityCudaEvent2, correlationId, 4, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityCudaEvent2, contextId, 8, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityCudaEvent2, streamId, 12, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityCudaEvent2, eventId, 16, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityCudaEvent2, deviceId, 24, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityCudaEvent2, deviceTimestamp, 40, 8);
RACETRACK_EXPECT_FIELD(CUpti_ActivityCudaEvent2, cudaEventSyncId, 48, 8);

static_assert(sizeof(CUpti_ActivityStream) == 24);
RACETRACK_EXPECT_FIELD(CUpti_ActivityStream, contextId, 4, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityStream, streamId, 8, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityStream, priority, 12, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityStream, flag, 16, 4);
RACETRACK_EXPECT_FIELD(CUpti_ActivityStream, correlationId, 20, 4);

#undef RACETRACK_EXPECT_FIELD

constexpr std::array kEnabledKinds = {
    // First, so it is on before any module loads (docs/cupti-notes.md §2.4).
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,
    CUPTI_ACTIVITY_KIND_MEMCPY2,
    CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_MEMORY2,
    CUPTI_ACTIVITY_KIND_MEMORY_POOL,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
    // Not implied by SYNCHRONIZATION since CUDA 12.9 (docs/cupti-notes.md §9, item 6).
    CUPTI_ACTIVITY_KIND_CUDA_EVENT,
    CUPTI_ACTIVITY_KIND_STREAM,
};

// CUPTI timestamps are uint64 ns; the trace keeps int64 (0 = unknown).
int64_t timestamp(uint64_t ns) {
  return static_cast<int64_t>(ns);
}

MemoryKind memory_kind(uint32_t raw) {
  if (raw > static_cast<uint32_t>(MemoryKind::kManagedStatic)) return MemoryKind::kUnknown;
  return static_cast<MemoryKind>(raw);
}

SyncType sync_type(uint32_t raw) {
  if (raw > static_cast<uint32_t>(SyncType::kContextSynchronize)) return SyncType::kUnknown;
  return static_cast<SyncType>(raw);
}

// Records are laid out by CUPTI as the struct of their kind.
template <typename Record>
const Record& as(const CUpti_Activity& record) {
  return reinterpret_cast<const Record&>(record);
}

KernelRecord decode_kernel(const CUpti_ActivityKernel10& k) {
  KernelRecord out;
  out.correlation = k.correlationId;
  out.device = k.deviceId;
  out.context_id = k.contextId;
  out.stream_id = k.streamId;
  out.start = timestamp(k.start);
  out.end = timestamp(k.end);
  out.grid[0] = static_cast<uint32_t>(k.gridX);
  out.grid[1] = static_cast<uint32_t>(k.gridY);
  out.grid[2] = static_cast<uint32_t>(k.gridZ);
  out.block[0] = static_cast<uint32_t>(k.blockX);
  out.block[1] = static_cast<uint32_t>(k.blockY);
  out.block[2] = static_cast<uint32_t>(k.blockZ);
  out.graph_id = k.graphId;
  out.graph_node_id = k.graphNodeId;
  const char* name = k.name;
  if (name != nullptr) out.name = name;
  return out;
}

// The fields plain and peer-to-peer copy records share.
template <typename Record>
CopyRecord decode_copy_fields(const Record& c) {
  CopyRecord out;
  out.correlation = c.correlationId;
  out.device = c.deviceId;
  out.context_id = c.contextId;
  out.stream_id = c.streamId;
  out.start = timestamp(c.start);
  out.end = timestamp(c.end);
  out.bytes = c.bytes;
  out.copy_kind = c.copyKind;
  out.src_kind = memory_kind(c.srcKind);
  out.dst_kind = memory_kind(c.dstKind);
  out.async = (c.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
  out.graph_id = c.graphId;
  out.graph_node_id = c.graphNodeId;
  return out;
}

CopyRecord decode_copy(const CUpti_ActivityMemcpy6& c) { return decode_copy_fields(c); }

CopyRecord decode_peer_copy(const CUpti_ActivityMemcpyPtoP4& c) {
  CopyRecord out = decode_copy_fields(c);
  out.peer = true;
  out.src_device = c.srcDeviceId;
  out.dst_device = c.dstDeviceId;
  return out;
}

MemsetRecord decode_memset(const CUpti_ActivityMemset4& m) {
  MemsetRecord out;
  out.correlation = m.correlationId;
  out.device = m.deviceId;
  out.context_id = m.contextId;
  out.stream_id = m.streamId;
  out.start = timestamp(m.start);
  out.end = timestamp(m.end);
  out.bytes = m.bytes;
  out.value = m.value;
  out.memory_kind = memory_kind(m.memoryKind);
  out.async = (m.flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) != 0;
  out.graph_id = m.graphId;
  out.graph_node_id = m.graphNodeId;
  return out;
}

MemoryRecord decode_memory(const CUpti_ActivityMemory4& m) {
  MemoryRecord out;
  out.correlation = m.correlationId;
  out.device = m.deviceId;
  out.context_id = m.contextId;
  out.stream_id = m.streamId;
  out.release = m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  out.memory_kind = memory_kind(m.memoryKind);
  out.address = m.address;
  out.bytes = m.bytes;
  out.timestamp = timestamp(m.timestamp);
  out.async = m.isAsync != 0;
  out.pool_type = static_cast<uint8_t>(m.memoryPoolConfig.memoryPoolType);
  return out;
}

// CUPTI_SYNCHRONIZATION_INVALID_VALUE marks a field that does not apply
// (no stream for an event sync, no event for a stream sync, ...).
bool applies(uint64_t sync_field) {
  // cudaEventSyncId is 64-bit but the marker is a uint32: accept either width.
  return sync_field != CUPTI_SYNCHRONIZATION_INVALID_VALUE && sync_field != UINT64_MAX;
}

SyncRecord decode_sync(const CUpti_ActivitySynchronization2& s) {
  SyncRecord out;
  out.correlation = s.correlationId;
  out.context_id = s.contextId;
  out.type = sync_type(s.type);
  out.start = timestamp(s.start);
  out.end = timestamp(s.end);
  if (applies(s.streamId)) out.stream_id = s.streamId;
  if (applies(s.cudaEventId)) out.event_id = s.cudaEventId;
  if (applies(s.cudaEventSyncId)) out.sync_id = s.cudaEventSyncId;
  // A CUresult (600 for a busy event query), kept as is.
  out.return_value = static_cast<int32_t>(s.returnValue);
  return out;
}

EventRecordRecord decode_cuda_event(const CUpti_ActivityCudaEvent2& e) {
  EventRecordRecord out;
  out.correlation = e.correlationId;
  out.context_id = e.contextId;
  out.stream_id = e.streamId;
  out.device = e.deviceId;
  out.event_id = e.eventId;
  out.sync_id = e.cudaEventSyncId;
  out.device_timestamp = timestamp(e.deviceTimestamp);
  return out;
}

StreamRecord decode_stream(const CUpti_ActivityStream& s) {
  StreamRecord out;
  out.correlation = s.correlationId;
  out.context_id = s.contextId;
  out.stream_id = s.streamId;
  out.priority = static_cast<int32_t>(s.priority);  // stored unsigned, but priorities are <= 0
  out.flag = static_cast<uint8_t>(s.flag);
  return out;
}

}  // namespace

std::span<const CUpti_ActivityKind> enabled_activity_kinds() {
  return kEnabledKinds;
}

std::optional<DeviceRecord> decode_record(const CUpti_Activity& record) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return decode_kernel(as<CUpti_ActivityKernel10>(record));
    case CUPTI_ACTIVITY_KIND_MEMCPY: return decode_copy(as<CUpti_ActivityMemcpy6>(record));
    case CUPTI_ACTIVITY_KIND_MEMCPY2: return decode_peer_copy(as<CUpti_ActivityMemcpyPtoP4>(record));
    case CUPTI_ACTIVITY_KIND_MEMSET: return decode_memset(as<CUpti_ActivityMemset4>(record));
    case CUPTI_ACTIVITY_KIND_MEMORY2: return decode_memory(as<CUpti_ActivityMemory4>(record));
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return decode_sync(as<CUpti_ActivitySynchronization2>(record));
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: return decode_cuda_event(as<CUpti_ActivityCudaEvent2>(record));
    case CUPTI_ACTIVITY_KIND_STREAM: return decode_stream(as<CUpti_ActivityStream>(record));
    default: return std::nullopt;  // OVERHEAD, MEMORY_POOL, ...: not in the trace
  }
}

const CUpti_Activity* BufferRecordSource::next() {
  if (done_) return nullptr;
  const CUptiResult result = next_record_(buffer_, valid_size_, &current_);
  if (result == CUPTI_SUCCESS) return current_;
  done_ = true;
  if (result != CUPTI_ERROR_MAX_LIMIT_REACHED) error_ = result;
  return nullptr;
}

}  // namespace racetrack::capture
