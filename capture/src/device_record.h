// What the capturer keeps of one CUPTI activity record: plain structs with
// the fields the trace needs, decoded from the packed CUPTI records by
// record_decoder.h and joined to API events by the trace assembler.
#pragma once
#include <cstdint>
#include <string>
#include <variant>

namespace racetrack::capture {

// Times are CLOCK_REALTIME ns as CUPTI reports them (0 = unknown).
struct KernelRecord {
  uint32_t correlation = 0;
  uint32_t device = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  int64_t start = 0;
  int64_t end = 0;
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  uint32_t graph_id = 0;       // graph exec id for graph launches, else 0
  uint64_t graph_node_id = 0;  // exec node id for graph launches, else 0
  std::string name;            // mangled
};

// CUpti_ActivityMemoryKind values that matter (1 pageable, 2 pinned, 3 device, ...).
enum class MemoryKind : uint8_t {
  kUnknown = 0, kPageable = 1, kPinned = 2, kDevice = 3, kArray = 4, kManaged = 5,
  kDeviceStatic = 6, kManagedStatic = 7,
};

struct CopyRecord {
  uint32_t correlation = 0;
  uint32_t device = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  int64_t start = 0;
  int64_t end = 0;
  uint64_t bytes = 0;
  uint8_t copy_kind = 0;  // CUpti_ActivityMemcpyKind (1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP, ...)
  MemoryKind src_kind = MemoryKind::kUnknown;
  MemoryKind dst_kind = MemoryKind::kUnknown;
  bool async = false;     // CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC
  bool peer = false;      // from a MEMCPY2 (peer-to-peer) record
  uint32_t src_device = 0;
  uint32_t dst_device = 0;
  uint32_t graph_id = 0;
  uint64_t graph_node_id = 0;
};

struct MemsetRecord {
  uint32_t correlation = 0;
  uint32_t device = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  int64_t start = 0;
  int64_t end = 0;
  uint64_t bytes = 0;
  uint32_t value = 0;
  MemoryKind memory_kind = MemoryKind::kUnknown;
  bool async = false;
  uint32_t graph_id = 0;
  uint64_t graph_node_id = 0;
};

// MEMORY2: an allocation or release seen by the driver.
struct MemoryRecord {
  uint32_t correlation = 0;  // 0 for module loads (DEVICE_STATIC)
  uint32_t device = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0xFFFFFFFFu;  // CUPTI_INVALID_STREAM_ID unless stream-ordered
  bool release = false;              // false: ALLOCATION, true: RELEASE
  MemoryKind memory_kind = MemoryKind::kUnknown;
  uint64_t address = 0;
  uint64_t bytes = 0;
  int64_t timestamp = 0;
  bool async = false;
  uint8_t pool_type = 0;  // CUpti_ActivityMemoryPoolType (0 none, 1 local, 2 imported)
};

// SYNCHRONIZATION: host waits (and, since CUDA 12.x, event queries).
enum class SyncType : uint8_t {
  kUnknown = 0, kEventSynchronize = 1, kStreamWaitEvent = 2, kStreamSynchronize = 3,
  kContextSynchronize = 4,
};

struct SyncRecord {
  uint32_t correlation = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0xFFFFFFFFu;  // the waiting stream for kStreamWaitEvent
  SyncType type = SyncType::kUnknown;
  int64_t start = 0;
  int64_t end = 0;
  uint32_t event_id = 0xFFFFFFFFu;
  uint64_t sync_id = 0;       // cudaEventSyncId of the record waited for (0 = none)
  int32_t return_value = 0;   // 600 (not ready) for a busy event query
};

// CUDA_EVENT: one event record call.
struct EventRecordRecord {
  uint32_t correlation = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  uint32_t device = 0;
  uint32_t event_id = 0;
  uint64_t sync_id = 0;
  int64_t device_timestamp = 0;
};

// STREAM: a stream's creation (flag 1 blocking, 2 non-blocking, 3 NULL stream).
struct StreamRecord {
  uint32_t correlation = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  int32_t priority = 0;
  uint8_t flag = 0;
};

// OVERHEAD records are not kept; dropped counts come from CUPTI directly.
using DeviceRecord = std::variant<KernelRecord, CopyRecord, MemsetRecord, MemoryRecord,
                                  SyncRecord, EventRecordRecord, StreamRecord>;

}  // namespace racetrack::capture
