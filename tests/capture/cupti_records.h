// Synthetic CUPTI activity records for tests that run without a GPU, and a
// fake cuptiActivityGetNextRecord over a buffer laid out like CUPTI's.
// Each maker zero-initialises the record and sets the fields it is given;
// tests set any other field on the returned value.
#pragma once
#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace racetrack::capture::cupti_records {

// The view decode_record() and RecordSource take of any record.
template <typename Record>
const CUpti_Activity& as_activity(const Record& record) {
  return reinterpret_cast<const CUpti_Activity&>(record);
}

inline CUpti_ActivityKernel10 kernel(uint32_t correlation, uint32_t stream, uint64_t start, uint64_t end,
                                     const char* name) {
  CUpti_ActivityKernel10 r{};
  r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  r.correlationId = correlation;
  r.streamId = stream;
  r.start = start;
  r.end = end;
  r.name = name;  // not copied: the caller keeps it alive
  return r;
}

inline CUpti_ActivityMemcpy6 memcpy(uint32_t correlation, CUpti_ActivityMemcpyKind copy_kind,
                                    CUpti_ActivityMemoryKind src_kind, CUpti_ActivityMemoryKind dst_kind,
                                    uint64_t bytes, bool async) {
  CUpti_ActivityMemcpy6 r{};
  r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  r.correlationId = correlation;
  r.copyKind = static_cast<uint8_t>(copy_kind);
  r.srcKind = static_cast<uint8_t>(src_kind);
  r.dstKind = static_cast<uint8_t>(dst_kind);
  r.bytes = bytes;
  r.flags = async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0;
  return r;
}

inline CUpti_ActivityMemset4 memset(uint32_t correlation, uint64_t bytes, uint32_t value,
                                    CUpti_ActivityMemoryKind memory_kind, bool async) {
  CUpti_ActivityMemset4 r{};
  r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  r.correlationId = correlation;
  r.bytes = bytes;
  r.value = value;
  r.memoryKind = static_cast<uint16_t>(memory_kind);
  r.flags = async ? CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC : 0;
  return r;
}

// A stream id other than CUPTI_INVALID_STREAM_ID makes it stream-ordered, as
// cudaMallocAsync/cudaFreeAsync report it: isAsync and a local pool.
inline CUpti_ActivityMemory4 memory(CUpti_ActivityMemoryOperationType operation,
                                    CUpti_ActivityMemoryKind memory_kind, uint64_t address, uint64_t bytes,
                                    uint32_t correlation, uint32_t stream) {
  CUpti_ActivityMemory4 r{};
  r.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  r.memoryOperationType = operation;
  r.memoryKind = memory_kind;
  r.address = address;
  r.bytes = bytes;
  r.correlationId = correlation;
  r.streamId = stream;
  if (stream != CUPTI_INVALID_STREAM_ID) {
    r.isAsync = 1;
    r.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
  }
  return r;
}

inline CUpti_ActivitySynchronization2 sync(CUpti_ActivitySynchronizationType type, uint32_t correlation,
                                           uint32_t event_id, uint64_t sync_id, uint32_t return_value,
                                           uint32_t stream) {
  CUpti_ActivitySynchronization2 r{};
  r.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  r.type = type;
  r.correlationId = correlation;
  r.cudaEventId = event_id;
  r.cudaEventSyncId = sync_id;
  r.returnValue = return_value;
  r.streamId = stream;
  return r;
}

inline CUpti_ActivityCudaEvent2 cuda_event(uint32_t correlation, uint32_t event_id, uint64_t sync_id,
                                           uint32_t stream) {
  CUpti_ActivityCudaEvent2 r{};
  r.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
  r.correlationId = correlation;
  r.eventId = event_id;
  r.cudaEventSyncId = sync_id;
  r.streamId = stream;
  return r;
}

inline CUpti_ActivityStream stream(uint32_t context, uint32_t stream_id, CUpti_ActivityStreamFlag flag,
                                   int32_t priority) {
  CUpti_ActivityStream r{};
  r.kind = CUPTI_ACTIVITY_KIND_STREAM;
  r.contextId = context;
  r.streamId = stream_id;
  r.flag = flag;
  r.priority = static_cast<uint32_t>(priority);  // CUPTI stores it unsigned
  return r;
}

// The size CUPTI gives a record of `kind` in a buffer; 0 for kinds the fake
// walker does not know (it then fails like CUPTI on a corrupt record).
inline size_t record_size(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMCPY2: return sizeof(CUpti_ActivityMemcpyPtoP4);
    case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_MEMORY2: return sizeof(CUpti_ActivityMemory4);
    case CUPTI_ACTIVITY_KIND_MEMORY_POOL: return sizeof(CUpti_ActivityMemoryPool3);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: return sizeof(CUpti_ActivityCudaEvent2);
    case CUPTI_ACTIVITY_KIND_STREAM: return sizeof(CUpti_ActivityStream);
    case CUPTI_ACTIVITY_KIND_OVERHEAD: return sizeof(CUpti_ActivityOverhead3);
    default: return 0;
  }
}

// A completed activity buffer: records back to back, 8-byte aligned.
class ActivityBuffer {
 public:
  template <typename Record>
  ActivityBuffer& add(const Record& record) {
    static_assert(sizeof(Record) % sizeof(uint64_t) == 0, "PACKED_ALIGNMENT pads records to 8 bytes");
    const size_t at = valid_size();
    words_.resize(words_.size() + sizeof(Record) / sizeof(uint64_t));
    std::memcpy(data() + at, &record, sizeof(Record));
    return *this;
  }
  uint8_t* data() { return reinterpret_cast<uint8_t*>(words_.data()); }
  size_t valid_size() const { return words_.size() * sizeof(uint64_t); }

 private:
  std::vector<uint64_t> words_;  // uint64_t keeps the records aligned
};

// A stand-in for cuptiActivityGetNextRecord over an ActivityBuffer: the
// first record when *record is null, else the one after it; MAX_LIMIT_REACHED
// at the end; INVALID_KIND, as CUPTI, on a record that is cut off or of a
// kind record_size() does not know.
inline CUptiResult next_record(uint8_t* buffer, size_t valid_size, CUpti_Activity** record) {
  size_t at = 0;
  if (*record != nullptr) {
    at = static_cast<size_t>(reinterpret_cast<uint8_t*>(*record) - buffer) + record_size((*record)->kind);
  }
  if (at >= valid_size) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  auto* found = reinterpret_cast<CUpti_Activity*>(buffer + at);
  const size_t size = record_size(found->kind);
  if (size == 0 || at + size > valid_size) return CUPTI_ERROR_INVALID_KIND;
  *record = found;
  return CUPTI_SUCCESS;
}

}  // namespace racetrack::capture::cupti_records
