// What the capturer records from one CUDA API or NVTX callback: a plain,
// trivially copyable struct, so the launch path only copies bytes into a
// thread-local log (thread_log.h). The callback decoder fills it from
// CUpti_CallbackData; the trace assembler turns events into trace ops.
#pragma once
#include <cstdint>
#include <type_traits>

namespace racetrack::capture {

enum class ApiKind : uint8_t {
  kUnknown = 0,
  kLaunch,         // cuLaunchKernel[Ex], cuLaunchCooperativeKernel
  kMemcpy,         // cudaMemcpy[2D|3D|Batch|Symbol][Async], cuMemcpy*[Async]
  kMemset,         // cudaMemset[2D|3D][Async], cuMemsetD*[2D*][Async]
  kEventRecord,    // cudaEventRecord[WithFlags], cuEventRecord[WithFlags]
  kStreamWait,     // cudaStreamWaitEvent, cuStreamWaitEvent
  kStreamSync,     // cudaStreamSynchronize, cuStreamSynchronize
  kEventSync,      // cudaEventSynchronize, cuEventSynchronize
  kDeviceSync,     // cudaDeviceSynchronize, cuCtxSynchronize
  kStreamQuery,    // cudaStreamQuery, cuStreamQuery (result says ready or not)
  kEventQuery,     // cudaEventQuery, cuEventQuery
  kStreamCreate,   // stream = the new handle (read at EXIT), value = flags
  kStreamDestroy,
  kEventDestroy,
  kMalloc,         // device allocation: dst = address, bytes = size
  kFree,           // dst = address
  kHostAlloc,      // cudaMallocHost / cudaHostAlloc / cuMemAllocHost / cuMemHostAlloc
  kHostFree,
  kHostRegister,   // cudaHostRegister / cuMemHostRegister: pageable made pinned
  kHostUnregister,
  kMallocAsync,    // cudaMallocAsync / cuMemAllocAsync (stream-ordered)
  kFreeAsync,
  kVmmMap,         // cuMemMap: dst = address, bytes = size
  kVmmUnmap,
  kGraphLaunch,    // handle = graph exec, value = CUPTI graph exec id when known
  kCaptureBegin,   // cudaStreamBeginCapture / cuStreamBeginCapture
  kCaptureEnd,
  kNvtxPush,       // payload = message bytes
  kNvtxPop,
  kNvtxMark,       // payload = message bytes (racetrack annotations are marks)
  kGraphNodeCreated,  // resource callback: handle = CUPTI node id, value = node type
  kGraphNodeCloned,   // handle = new node id, src = original node id, dst = graph exec id
  kGraphDependency,   // handle = node id, src = the node it depends on
  kModuleLoaded,      // resource callback: handle = CUPTI module id, bytes = image size,
                      // correlation = the API call in flight on the thread (0 = none)
  kModuleLoad,        // cuModuleLoad[Data[Ex]|FatBinary]: handle = the CUmodule (read at EXIT)
  kHostFunc,          // cudaLaunchHostFunc / cuLaunchHostFunc / cudaStreamAddCallback: handle = the function
  kArrayCreate,       // cudaMalloc[3D]Array / cuArray[3D]Create: handle = the array (read at EXIT),
                      // payload = its shape (copy_shape_words.h ArrayShapeWord)
  kArrayDestroy,      // cudaFreeArray / cuArrayDestroy: handle = the array
};

enum class ApiDomain : uint8_t { kRuntime = 0, kDriver = 1, kNvtx = 2, kResource = 3 };

// Bits of ApiEvent::flags.
enum ApiFlag : uint16_t {
  kFlagAsync = 1 << 0,             // the *Async variant of a copy/memset/alloc
  kFlagPerThreadStream = 1 << 1,   // _ptsz entry point or cudaStreamPerThread
  // A launch with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION set
  // to non-zero (programmatic dependent launch).
  kFlagProgrammatic = 1 << 2,
  // A 2D / 3D copy or memset whose shape is in the payload
  // (copy_shape_words.h).
  kFlagPitched = 1 << 3,
  // cudaMemcpyBatchAsync / cuMemcpyBatchAsync: one (dst, src, bytes) triple
  // per copy in the payload (copy_shape_words.h).
  kFlagBatch = 1 << 4,
  // cudaMemcpyToSymbol / FromSymbol: the symbol side's device address is
  // not known at the call (0), handle = the symbol's host shadow.
  kFlagDstUnknown = 1 << 5,
  kFlagSrcUnknown = 1 << 6,
  // A copy with a CUDA array on either side: that side's dst / src is the
  // array handle, and its position inside the array follows in the payload
  // (copy_shape_words.h ArrayWord); the assembler gives it an address.
  kFlagArraySides = 1 << 7,
  // cudaMemcpy3DBatchAsync / cuMemcpy3DBatchAsync: per copy, its two first
  // addresses (or array handles), shape and array words in the payload
  // (copy_shape_words.h kBatch3DWordsPerCopy).
  kFlagBatch3D = 1 << 8,
  // A launch with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT: `event` is the
  // event it records; its triggerAtBlockStart is non-zero.
  kFlagProgrammaticEventAtBlockStart = 1 << 9,
};

inline constexpr uint32_t kNoId = 0xFFFFFFFFu;

struct ApiEvent {
  uint64_t seq = 0;          // global submission order, taken at ENTER
  uint64_t correlation = 0;  // CUPTI correlation id (0 for NVTX and resource events)
  uint64_t os_tid = 0;
  int64_t host_start = 0;    // CLOCK_REALTIME ns at ENTER
  int64_t host_end = 0;      // at EXIT
  ApiKind kind = ApiKind::kUnknown;
  ApiDomain domain = ApiDomain::kRuntime;
  uint16_t flags = 0;
  uint32_t cbid = 0;
  int32_t result = 0;            // cudaError_t / CUresult at EXIT (0 = success)
  uint32_t context_id = kNoId;   // cuptiGetContextId of the callback's context
  uint32_t stream_id = kNoId;    // cuptiGetStreamIdEx of `stream`, when resolved
  uint64_t stream = 0;           // CUstream / cudaStream_t handle
  uint64_t event = 0;            // CUevent handle (launches: the programmatic event, 0 = none)
  uint64_t handle = 0;           // CUfunction/CUkernel, graph exec, node id (see ApiKind)
  uint64_t dst = 0;              // copy/memset destination, allocation address
  uint64_t src = 0;              // copy source
  uint64_t bytes = 0;            // copy/memset/allocation size in bytes
  uint32_t value = 0;            // memset value, cudaMemcpyKind, stream/event flags, ...
  int32_t priority = 0;          // stream priority
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block[3] = {0, 0, 0};
  uint32_t shared_mem = 0;
  uint32_t element_size = 0;     // memset element size (1, 2, 4)
  uint64_t graph_node = 0;       // CUPTI node id created inside this call (capture)
  uint64_t module = 0;           // launches: the CUmodule holding the function, 0 = unknown
  // Variable-length data in the log's payload area: argument words for
  // launches (the packed parameter buffer split into 8-byte words), message
  // bytes for NVTX, the shape of pitched and batched copies
  // (copy_shape_words.h).
  uint32_t payload_offset = 0;
  uint32_t payload_words = 0;
  uint32_t payload_bytes = 0;    // exact byte length (NVTX text)
};
static_assert(std::is_trivially_copyable_v<ApiEvent>);

}  // namespace racetrack::capture
