// Decodes CUPTI callbacks into ApiEvents. One table (kCalls) says which
// callbacks are recorded, as what kind and with which flags; the readers
// below take each call's fields from its parameter struct (docs/cupti-notes.md §3.2).
// Every field read is pinned by a static_assert with the CUDA 13.0 offsets
// (in its reader, or per struct), so a header change fails the build instead
// of decoding garbage (§8).
#include "callback_decoder.h"

// cupti.h leaves the NVTX parameter structs out (and the generated headers
// have no include guards: include each once, here).
#include <generated_nvtx_meta.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstring>

namespace racetrack::capture {
namespace {

#define RACETRACK_FIELD_AT(type, field, offset) \
  static_assert(offsetof(type, field) == (offset), #type "::" #field " moved (CUDA header change?)")

// Argument words are the parameter bytes as the host lays them out.
static_assert(std::endian::native == std::endian::little, "argument words assume a little-endian host");

using enum ApiKind;

// ---------------------------------------------------------------------------
// The recorded callbacks.

struct CallSpec {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  ApiKind kind;
  uint16_t flags;
};

constexpr uint16_t kAsync = kFlagAsync;
constexpr uint16_t kPts = kFlagPerThreadStream;  // _ptsz / _ptds entry point

constexpr CallSpec rt(CUpti_runtime_api_trace_cbid cbid, ApiKind kind, uint16_t flags = 0) {
  return {CUPTI_CB_DOMAIN_RUNTIME_API, cbid, kind, flags};
}
constexpr CallSpec drv(CUpti_driver_api_trace_cbid cbid, ApiKind kind, uint16_t flags = 0) {
  return {CUPTI_CB_DOMAIN_DRIVER_API, cbid, kind, flags};
}
constexpr CallSpec nvtx(CUpti_nvtx_api_trace_cbid cbid, ApiKind kind) {
  return {CUPTI_CB_DOMAIN_NVTX, cbid, kind, 0};
}
constexpr CallSpec resource(CUpti_CallbackIdResource cbid, ApiKind kind) {
  return {CUPTI_CB_DOMAIN_RESOURCE, cbid, kind, 0};
}

// Runtime launches are left out on purpose: each nests a driver launch with
// the same correlation id, and only driver launches see every kernel (§3.3).
// Left out as legacy ids with no CUDA 13.0 parameter struct or entry point:
// cudaStreamDestroy_v3020 (the runtime reports _v5050), cuMemcpy_v2,
// cuMemHostAlloc_v2, and the pre-_v2 cuMemsetD*/cuMemcpy?to? ids.
constexpr CallSpec kCalls[] = {
    // Runtime API.
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, kMemcpy),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000, kMemcpy, kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, kMemcpy, kAsync),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000, kMemcpy, kAsync | kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020, kMemset),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000, kMemset, kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, kMemset, kAsync),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000, kMemset, kAsync | kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, kEventRecord),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000, kEventRecord, kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010, kEventRecord),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010, kEventRecord, kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, kStreamWait),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000, kStreamWait, kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, kStreamSync),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000, kStreamSync, kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020, kStreamQuery),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000, kStreamQuery, kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, kEventSync),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020, kEventQuery),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, kDeviceSync),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020, kStreamCreate),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000, kStreamCreate),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050, kStreamCreate),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050, kStreamDestroy),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020, kEventDestroy),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, kMalloc),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, kFree),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020, kHostAlloc),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020, kHostAlloc),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020, kHostFree),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000, kHostRegister),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000, kHostUnregister),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020, kMallocAsync, kAsync),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020, kMallocAsync, kAsync | kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020, kMallocAsync, kAsync),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020, kMallocAsync, kAsync | kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020, kFreeAsync, kAsync),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020, kFreeAsync, kAsync | kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, kGraphLaunch),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000, kGraphLaunch, kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000, kCaptureBegin),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000, kCaptureBegin, kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000, kCaptureEnd),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000, kCaptureEnd, kPts),

    // Driver API.
    drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, kLaunch),
    drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, kLaunch, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, kLaunch),
    drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, kLaunch, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, kLaunch),
    drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz, kLaunch, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy, kMemcpy),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds, kMemcpy, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync, kMemcpy, kAsync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz, kMemcpy, kAsync | kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, kMemcpy),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds, kMemcpy, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, kMemcpy),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds, kMemcpy, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2, kMemcpy),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds, kMemcpy, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, kMemcpy, kAsync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz, kMemcpy, kAsync | kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2, kMemcpy, kAsync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz, kMemcpy, kAsync | kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2, kMemcpy, kAsync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz, kMemcpy, kAsync | kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, kMemset),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds, kMemset, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2, kMemset),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds, kMemset, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, kMemset),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds, kMemset, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async, kMemset, kAsync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz, kMemset, kAsync | kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async, kMemset, kAsync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz, kMemset, kAsync | kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async, kMemset, kAsync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz, kMemset, kAsync | kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuEventRecord, kEventRecord),
    drv(CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz, kEventRecord, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags, kEventRecord),
    drv(CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz, kEventRecord, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, kStreamWait),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz, kStreamWait, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, kStreamSync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, kStreamSync, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamQuery, kStreamQuery),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz, kStreamQuery, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize, kEventSync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuEventQuery, kEventQuery),
    drv(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, kDeviceSync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2, kDeviceSync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamCreate, kStreamCreate),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority, kStreamCreate),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2, kStreamDestroy),
    drv(CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2, kEventDestroy),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, kMalloc),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, kFree),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2, kHostAlloc),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc, kHostAlloc),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost, kHostFree),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2, kHostRegister),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister, kHostUnregister),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, kMallocAsync, kAsync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz, kMallocAsync, kAsync | kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync, kMallocAsync, kAsync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz, kMallocAsync, kAsync | kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync, kFreeAsync, kAsync),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz, kFreeAsync, kAsync | kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemMap, kVmmMap),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemUnmap, kVmmUnmap),
    drv(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, kGraphLaunch),
    drv(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz, kGraphLaunch, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture, kCaptureBegin),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz, kCaptureBegin, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, kCaptureBegin),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz, kCaptureBegin, kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, kCaptureEnd),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz, kCaptureEnd, kPts),

    // NVTX (ASCII messages; the wide-character variants are not recorded).
    nvtx(CUPTI_CBID_NVTX_nvtxMarkA, kNvtxMark),
    nvtx(CUPTI_CBID_NVTX_nvtxMarkEx, kNvtxMark),
    nvtx(CUPTI_CBID_NVTX_nvtxRangePushA, kNvtxPush),
    nvtx(CUPTI_CBID_NVTX_nvtxRangePushEx, kNvtxPush),
    nvtx(CUPTI_CBID_NVTX_nvtxRangePop, kNvtxPop),
    nvtx(CUPTI_CBID_NVTX_nvtxDomainMarkEx, kNvtxMark),
    nvtx(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, kNvtxPush),
    nvtx(CUPTI_CBID_NVTX_nvtxDomainRangePop, kNvtxPop),

    // Resources: CUDA graph structure (§6.4).
    resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, kGraphNodeCreated),
    resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, kGraphNodeCloned),
    resource(CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED, kGraphDependency),
};

constexpr bool comes_before(const CallSpec& a, const CallSpec& b) {
  return a.domain != b.domain ? a.domain < b.domain : a.cbid < b.cbid;
}

// kCalls sorted by (domain, cbid) for a binary search on every callback.
constexpr auto kCallsByKey = [] {
  std::array<CallSpec, std::size(kCalls)> sorted{};
  std::copy(std::begin(kCalls), std::end(kCalls), sorted.begin());
  std::sort(sorted.begin(), sorted.end(), comes_before);
  return sorted;
}();
static_assert(std::adjacent_find(kCallsByKey.begin(), kCallsByKey.end(),
                                 [](const CallSpec& a, const CallSpec& b) { return !comes_before(a, b); }) ==
                  kCallsByKey.end(),
              "a callback is listed twice in kCalls");

constexpr auto kSubscribed = [] {
  std::array<CallbackId, std::size(kCalls)> ids{};
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = {kCalls[i].domain, kCalls[i].cbid};
  return ids;
}();

const CallSpec* find_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const CallSpec key{domain, cbid, kUnknown, 0};
  const auto it = std::lower_bound(kCallsByKey.begin(), kCallsByKey.end(), key, comes_before);
  if (it == kCallsByKey.end() || it->domain != domain || it->cbid != cbid) return nullptr;
  return &*it;
}

// ---------------------------------------------------------------------------
// Small helpers.

template <class Params>
const Params& as(const void* params) {
  return *static_cast<const Params*>(params);
}

uint64_t u64(const void* pointer) {
  return reinterpret_cast<uintptr_t>(pointer);
}
uint64_t u64(CUdeviceptr address) {
  return address;
}

// An out-parameter's value, 0 when the caller passed no place for it.
template <class T>
uint64_t out_value(const T* out) {
  return out != nullptr ? u64(*out) : 0;
}

// cudaStreamPerThread == CU_STREAM_PER_THREAD.
constexpr uint64_t kPerThreadStreamHandle = 0x2;

void set_stream(ApiEvent& event, uint64_t stream) {
  event.stream = stream;
  if (stream == kPerThreadStreamHandle) event.flags |= kFlagPerThreadStream;
}

// cudaMemcpyKind numbers, also used for the driver's direction-named copies.
constexpr uint32_t kHostToDevice = 1;
constexpr uint32_t kDeviceToHost = 2;
constexpr uint32_t kDeviceToDevice = 3;
constexpr uint32_t kCopyDefault = 4;  // direction inferred from the addresses

// cudaErrorNotReady == CUDA_ERROR_NOT_READY: a query of unfinished work.
constexpr int32_t kNotReady = 600;

// ---------------------------------------------------------------------------
// Launch argument words (§4.2).

// The most (key, value) pairs read from `extra` before giving up on a
// missing terminator.
constexpr int kMaxExtraPairs = 16;

// The packed argument buffer a launch passes through `extra`
// (CU_LAUNCH_PARAM_BUFFER_POINTER/_SIZE); nullptr when there is none.
const unsigned char* extra_buffer(void* const* extra, size_t& size) {
  if (extra == nullptr) return nullptr;
  const void* buffer = nullptr;
  const size_t* buffer_size = nullptr;
  for (int pair = 0; pair < kMaxExtraPairs; ++pair) {
    const uintptr_t key = reinterpret_cast<uintptr_t>(extra[2 * pair]);
    if (key == CU_LAUNCH_PARAM_END_AS_INT) break;
    const void* value = extra[2 * pair + 1];
    if (key == CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT) buffer = value;
    if (key == CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT) buffer_size = static_cast<const size_t*>(value);
  }
  // The driver ignores a buffer without its size.
  if (buffer == nullptr || buffer_size == nullptr) return nullptr;
  size = *buffer_size;
  return static_cast<const unsigned char*>(buffer);
}

// Appends the launch's parameter buffer, zero-padded and split into 8-byte
// words, to the payload. All or nothing: an unknown layout, missing values
// or too little room leave payload_words = 0.
void append_argument_words(const ParamLayout* layout, void* const* kernel_params, void* const* extra,
                           ApiEvent& event, Payload& payload) {
  event.payload_offset = payload.used;
  event.payload_words = 0;
  if (layout == nullptr || payload.words == nullptr || payload.used > payload.capacity) return;
  const uint32_t total = layout->total_bytes();
  if (total == 0) return;  // a kernel without parameters: zero words
  const uint32_t words = (total + 7) / 8;
  if (payload.capacity - payload.used < words) return;

  const unsigned char* packed = nullptr;
  if (kernel_params == nullptr) {
    size_t packed_size = 0;
    packed = extra_buffer(extra, packed_size);
    if (packed == nullptr || packed_size < total) return;
  }

  uint64_t* image_words = payload.words + payload.used;
  std::fill_n(image_words, words, uint64_t{0});
  auto* image = reinterpret_cast<unsigned char*>(image_words);
  for (size_t i = 0; i < layout->params.size(); ++i) {
    const ParamLayout::Param param = layout->params[i];
    if (uint64_t{param.offset} + param.size > total) return;  // not in offset order
    const void* value = kernel_params != nullptr ? kernel_params[i] : packed + param.offset;
    if (value == nullptr) return;
    std::memcpy(image + param.offset, value, param.size);
  }
  event.payload_words = words;
  payload.used += words;
}

// ---------------------------------------------------------------------------
// Readers. Each takes one family of parameter structs and returns true (the
// call is recorded), so that a switch case can return it. A reader asserts
// the offsets of fields that all its structs spell alike; fields spelled
// differently (stream or hStream, ...) are asserted per struct instead.

// Calls without a stream argument stay on stream 0.
template <class Params>
bool read_stream(const Params& p, ApiEvent& event) {
  if constexpr (requires(const Params& q) { q.stream; }) {
    set_stream(event, u64(p.stream));
  } else if constexpr (requires(const Params& q) { q.hStream; }) {
    set_stream(event, u64(p.hStream));
  }
  return true;
}

template <class Params>
bool read_event(const Params& p, ApiEvent& event) {
  if constexpr (requires(const Params& q) { q.event; }) {
    event.event = u64(p.event);
  } else {
    event.event = u64(p.hEvent);
  }
  return true;
}

// Into `value`, for calls that have flags.
template <class Params>
void read_flags(const Params& p, ApiEvent& event) {
  if constexpr (requires(const Params& q) { q.flags; }) {
    event.value = p.flags;
  } else if constexpr (requires(const Params& q) { q.Flags; }) {
    event.value = p.Flags;
  }
}

// ---------------------------------------------------------------------------
// Driver launches.

// cuLaunchKernel and cuLaunchCooperativeKernel (which has no `extra`).
template <class Params>
bool read_launch(const Params& p, DriverQueries& queries, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, f, 0);
  RACETRACK_FIELD_AT(Params, gridDimX, 8);
  RACETRACK_FIELD_AT(Params, gridDimY, 12);
  RACETRACK_FIELD_AT(Params, gridDimZ, 16);
  RACETRACK_FIELD_AT(Params, blockDimX, 20);
  RACETRACK_FIELD_AT(Params, blockDimY, 24);
  RACETRACK_FIELD_AT(Params, blockDimZ, 28);
  RACETRACK_FIELD_AT(Params, sharedMemBytes, 32);
  RACETRACK_FIELD_AT(Params, hStream, 40);
  RACETRACK_FIELD_AT(Params, kernelParams, 48);
  event.handle = u64(p.f);
  event.grid[0] = p.gridDimX;
  event.grid[1] = p.gridDimY;
  event.grid[2] = p.gridDimZ;
  event.block[0] = p.blockDimX;
  event.block[1] = p.blockDimY;
  event.block[2] = p.blockDimZ;
  event.shared_mem = p.sharedMemBytes;
  set_stream(event, u64(p.hStream));
  void* const* extra = nullptr;
  if constexpr (requires(const Params& q) { q.extra; }) {
    RACETRACK_FIELD_AT(Params, extra, 56);
    extra = p.extra;
  }
  append_argument_words(queries.param_layout(event.handle), p.kernelParams, extra, event, payload);
  return true;
}

RACETRACK_FIELD_AT(CUlaunchConfig, gridDimX, 0);
RACETRACK_FIELD_AT(CUlaunchConfig, gridDimY, 4);
RACETRACK_FIELD_AT(CUlaunchConfig, gridDimZ, 8);
RACETRACK_FIELD_AT(CUlaunchConfig, blockDimX, 12);
RACETRACK_FIELD_AT(CUlaunchConfig, blockDimY, 16);
RACETRACK_FIELD_AT(CUlaunchConfig, blockDimZ, 20);
RACETRACK_FIELD_AT(CUlaunchConfig, sharedMemBytes, 24);
RACETRACK_FIELD_AT(CUlaunchConfig, hStream, 32);

template <class Params>
bool read_launch_ex(const Params& p, DriverQueries& queries, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, config, 0);
  RACETRACK_FIELD_AT(Params, f, 8);
  RACETRACK_FIELD_AT(Params, kernelParams, 16);
  RACETRACK_FIELD_AT(Params, extra, 24);
  event.handle = u64(p.f);
  if (p.config != nullptr) {
    const CUlaunchConfig& config = *p.config;
    event.grid[0] = config.gridDimX;
    event.grid[1] = config.gridDimY;
    event.grid[2] = config.gridDimZ;
    event.block[0] = config.blockDimX;
    event.block[1] = config.blockDimY;
    event.block[2] = config.blockDimZ;
    event.shared_mem = config.sharedMemBytes;
    set_stream(event, u64(config.hStream));
  }
  append_argument_words(queries.param_layout(event.handle), p.kernelParams, p.extra, event, payload);
  return true;
}

// ---------------------------------------------------------------------------
// Copies and memsets. Synchronous variants have no stream field.

template <class Params>
bool read_runtime_copy(const Params& p, ApiEvent& event) {
  RACETRACK_FIELD_AT(Params, dst, 0);
  RACETRACK_FIELD_AT(Params, src, 8);
  RACETRACK_FIELD_AT(Params, count, 16);
  RACETRACK_FIELD_AT(Params, kind, 24);
  if constexpr (requires(const Params& q) { q.stream; }) RACETRACK_FIELD_AT(Params, stream, 32);
  event.dst = u64(p.dst);
  event.src = u64(p.src);
  event.bytes = p.count;
  event.value = static_cast<uint32_t>(p.kind);
  return read_stream(p, event);
}

// The driver's copies differ only in how they name their ends.
template <class Params>
bool read_driver_copy(const Params& p, uint64_t dst, uint64_t src, uint32_t direction, ApiEvent& event) {
  RACETRACK_FIELD_AT(Params, ByteCount, 16);
  if constexpr (requires(const Params& q) { q.hStream; }) RACETRACK_FIELD_AT(Params, hStream, 24);
  event.dst = dst;
  event.src = src;
  event.bytes = p.ByteCount;
  event.value = direction;
  return read_stream(p, event);
}

// cuMemcpy[Async]: unified addressing decides the direction.
template <class Params>
bool read_copy_unified(const Params& p, ApiEvent& event) {
  RACETRACK_FIELD_AT(Params, dst, 0);
  RACETRACK_FIELD_AT(Params, src, 8);
  return read_driver_copy(p, p.dst, p.src, kCopyDefault, event);
}

template <class Params>
bool read_copy_htod(const Params& p, ApiEvent& event) {
  RACETRACK_FIELD_AT(Params, dstDevice, 0);
  RACETRACK_FIELD_AT(Params, srcHost, 8);
  return read_driver_copy(p, p.dstDevice, u64(p.srcHost), kHostToDevice, event);
}

template <class Params>
bool read_copy_dtoh(const Params& p, ApiEvent& event) {
  RACETRACK_FIELD_AT(Params, dstHost, 0);
  RACETRACK_FIELD_AT(Params, srcDevice, 8);
  return read_driver_copy(p, u64(p.dstHost), p.srcDevice, kDeviceToHost, event);
}

template <class Params>
bool read_copy_dtod(const Params& p, ApiEvent& event) {
  RACETRACK_FIELD_AT(Params, dstDevice, 0);
  RACETRACK_FIELD_AT(Params, srcDevice, 8);
  return read_driver_copy(p, p.dstDevice, p.srcDevice, kDeviceToDevice, event);
}

template <class Params>
bool read_runtime_memset(const Params& p, ApiEvent& event) {
  RACETRACK_FIELD_AT(Params, devPtr, 0);
  RACETRACK_FIELD_AT(Params, value, 8);
  RACETRACK_FIELD_AT(Params, count, 16);
  if constexpr (requires(const Params& q) { q.stream; }) RACETRACK_FIELD_AT(Params, stream, 24);
  event.dst = u64(p.devPtr);
  event.value = static_cast<uint32_t>(p.value);
  event.bytes = p.count;
  event.element_size = 1;
  return read_stream(p, event);
}

// cuMemsetD8/D16/D32: N elements of 1, 2 or 4 bytes (uc, us or ui).
template <class Params>
bool read_driver_memset(const Params& p, ApiEvent& event) {
  RACETRACK_FIELD_AT(Params, dstDevice, 0);
  RACETRACK_FIELD_AT(Params, N, 16);
  if constexpr (requires(const Params& q) { q.hStream; }) RACETRACK_FIELD_AT(Params, hStream, 24);
  event.dst = p.dstDevice;
  if constexpr (requires(const Params& q) { q.uc; }) {
    RACETRACK_FIELD_AT(Params, uc, 8);
    event.value = p.uc;
    event.element_size = 1;
  } else if constexpr (requires(const Params& q) { q.us; }) {
    RACETRACK_FIELD_AT(Params, us, 8);
    event.value = p.us;
    event.element_size = 2;
  } else {
    RACETRACK_FIELD_AT(Params, ui, 8);
    event.value = p.ui;
    event.element_size = 4;
  }
  event.bytes = uint64_t{p.N} * event.element_size;
  return read_stream(p, event);
}

// ---------------------------------------------------------------------------
// Events and streams. Runtime and driver structs name these fields
// differently but lay them out alike.

RACETRACK_FIELD_AT(cudaEventRecord_v3020_params, event, 0);
RACETRACK_FIELD_AT(cudaEventRecord_v3020_params, stream, 8);
RACETRACK_FIELD_AT(cudaEventRecord_ptsz_v7000_params, event, 0);
RACETRACK_FIELD_AT(cudaEventRecord_ptsz_v7000_params, stream, 8);
RACETRACK_FIELD_AT(cudaEventRecordWithFlags_v11010_params, event, 0);
RACETRACK_FIELD_AT(cudaEventRecordWithFlags_v11010_params, stream, 8);
RACETRACK_FIELD_AT(cudaEventRecordWithFlags_v11010_params, flags, 16);
RACETRACK_FIELD_AT(cudaEventRecordWithFlags_ptsz_v11010_params, event, 0);
RACETRACK_FIELD_AT(cudaEventRecordWithFlags_ptsz_v11010_params, stream, 8);
RACETRACK_FIELD_AT(cudaEventRecordWithFlags_ptsz_v11010_params, flags, 16);
RACETRACK_FIELD_AT(cuEventRecord_params, hEvent, 0);
RACETRACK_FIELD_AT(cuEventRecord_params, hStream, 8);
RACETRACK_FIELD_AT(cuEventRecord_ptsz_params, hEvent, 0);
RACETRACK_FIELD_AT(cuEventRecord_ptsz_params, hStream, 8);
RACETRACK_FIELD_AT(cuEventRecordWithFlags_params, hEvent, 0);
RACETRACK_FIELD_AT(cuEventRecordWithFlags_params, hStream, 8);
RACETRACK_FIELD_AT(cuEventRecordWithFlags_params, flags, 16);
RACETRACK_FIELD_AT(cuEventRecordWithFlags_ptsz_params, hEvent, 0);
RACETRACK_FIELD_AT(cuEventRecordWithFlags_ptsz_params, hStream, 8);
RACETRACK_FIELD_AT(cuEventRecordWithFlags_ptsz_params, flags, 16);
RACETRACK_FIELD_AT(cudaStreamWaitEvent_v3020_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamWaitEvent_v3020_params, event, 8);
RACETRACK_FIELD_AT(cudaStreamWaitEvent_v3020_params, flags, 16);
RACETRACK_FIELD_AT(cudaStreamWaitEvent_ptsz_v7000_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamWaitEvent_ptsz_v7000_params, event, 8);
RACETRACK_FIELD_AT(cudaStreamWaitEvent_ptsz_v7000_params, flags, 16);
RACETRACK_FIELD_AT(cuStreamWaitEvent_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamWaitEvent_params, hEvent, 8);
RACETRACK_FIELD_AT(cuStreamWaitEvent_params, Flags, 16);
RACETRACK_FIELD_AT(cuStreamWaitEvent_ptsz_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamWaitEvent_ptsz_params, hEvent, 8);
RACETRACK_FIELD_AT(cuStreamWaitEvent_ptsz_params, Flags, 16);

// Event records and stream waits: the event, the stream and any flags.
template <class Params>
bool read_event_on_stream(const Params& p, ApiEvent& event) {
  read_event(p, event);
  read_flags(p, event);
  return read_stream(p, event);
}

// Calls whose only recorded argument is a stream or an event.
RACETRACK_FIELD_AT(cudaStreamSynchronize_v3020_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamSynchronize_ptsz_v7000_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamQuery_v3020_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamQuery_ptsz_v7000_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamDestroy_v5050_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamEndCapture_v10000_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamEndCapture_ptsz_v10000_params, stream, 0);
RACETRACK_FIELD_AT(cuStreamSynchronize_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamSynchronize_ptsz_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamQuery_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamQuery_ptsz_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamDestroy_v2_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamBeginCapture_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamBeginCapture_ptsz_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamEndCapture_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamEndCapture_ptsz_params, hStream, 0);
RACETRACK_FIELD_AT(cudaEventSynchronize_v3020_params, event, 0);
RACETRACK_FIELD_AT(cudaEventQuery_v3020_params, event, 0);
RACETRACK_FIELD_AT(cudaEventDestroy_v3020_params, event, 0);
RACETRACK_FIELD_AT(cuEventSynchronize_params, hEvent, 0);
RACETRACK_FIELD_AT(cuEventQuery_params, hEvent, 0);
RACETRACK_FIELD_AT(cuEventDestroy_v2_params, hEvent, 0);

RACETRACK_FIELD_AT(cudaStreamBeginCapture_v10000_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamBeginCapture_ptsz_v10000_params, stream, 0);
RACETRACK_FIELD_AT(cuStreamBeginCapture_v2_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamBeginCapture_v2_ptsz_params, hStream, 0);

template <class Params>
bool read_capture_begin(const Params& p, ApiEvent& event) {
  RACETRACK_FIELD_AT(Params, mode, 8);
  event.value = static_cast<uint32_t>(p.mode);
  return read_stream(p, event);
}

// Stream creation: the handle is an out-parameter read at EXIT.
RACETRACK_FIELD_AT(cudaStreamCreateWithFlags_v5000_params, flags, 8);
RACETRACK_FIELD_AT(cudaStreamCreateWithPriority_v5050_params, flags, 8);
RACETRACK_FIELD_AT(cuStreamCreate_params, Flags, 8);
RACETRACK_FIELD_AT(cuStreamCreateWithPriority_params, flags, 8);

template <class Params>
bool read_stream_create(const Params& p, ApiEvent& event) {
  read_flags(p, event);
  if constexpr (requires(const Params& q) { q.priority; }) {
    RACETRACK_FIELD_AT(Params, priority, 12);
    event.priority = p.priority;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Memory. Allocated addresses are out-parameters read at EXIT.

RACETRACK_FIELD_AT(cudaMalloc_v3020_params, size, 8);
RACETRACK_FIELD_AT(cudaFree_v3020_params, devPtr, 0);
RACETRACK_FIELD_AT(cudaMallocHost_v3020_params, size, 8);
RACETRACK_FIELD_AT(cudaHostAlloc_v3020_params, size, 8);
RACETRACK_FIELD_AT(cudaHostAlloc_v3020_params, flags, 16);
RACETRACK_FIELD_AT(cudaFreeHost_v3020_params, ptr, 0);
RACETRACK_FIELD_AT(cudaHostRegister_v4000_params, ptr, 0);
RACETRACK_FIELD_AT(cudaHostRegister_v4000_params, size, 8);
RACETRACK_FIELD_AT(cudaHostRegister_v4000_params, flags, 16);
RACETRACK_FIELD_AT(cudaHostUnregister_v4000_params, ptr, 0);
RACETRACK_FIELD_AT(cudaMallocAsync_v11020_params, size, 8);
RACETRACK_FIELD_AT(cudaMallocAsync_v11020_params, hStream, 16);
RACETRACK_FIELD_AT(cudaMallocAsync_ptsz_v11020_params, size, 8);
RACETRACK_FIELD_AT(cudaMallocAsync_ptsz_v11020_params, hStream, 16);
RACETRACK_FIELD_AT(cudaMallocFromPoolAsync_v11020_params, size, 8);
RACETRACK_FIELD_AT(cudaMallocFromPoolAsync_v11020_params, stream, 24);
RACETRACK_FIELD_AT(cudaMallocFromPoolAsync_ptsz_v11020_params, size, 8);
RACETRACK_FIELD_AT(cudaMallocFromPoolAsync_ptsz_v11020_params, stream, 24);
RACETRACK_FIELD_AT(cudaFreeAsync_v11020_params, devPtr, 0);
RACETRACK_FIELD_AT(cudaFreeAsync_v11020_params, hStream, 8);
RACETRACK_FIELD_AT(cudaFreeAsync_ptsz_v11020_params, devPtr, 0);
RACETRACK_FIELD_AT(cudaFreeAsync_ptsz_v11020_params, hStream, 8);

RACETRACK_FIELD_AT(cuMemAlloc_v2_params, bytesize, 8);
RACETRACK_FIELD_AT(cuMemFree_v2_params, dptr, 0);
RACETRACK_FIELD_AT(cuMemAllocHost_v2_params, bytesize, 8);
RACETRACK_FIELD_AT(cuMemHostAlloc_params, bytesize, 8);
RACETRACK_FIELD_AT(cuMemHostAlloc_params, Flags, 16);
RACETRACK_FIELD_AT(cuMemFreeHost_params, p, 0);
RACETRACK_FIELD_AT(cuMemHostRegister_v2_params, p, 0);
RACETRACK_FIELD_AT(cuMemHostRegister_v2_params, bytesize, 8);
RACETRACK_FIELD_AT(cuMemHostRegister_v2_params, Flags, 16);
RACETRACK_FIELD_AT(cuMemHostUnregister_params, p, 0);
RACETRACK_FIELD_AT(cuMemAllocAsync_params, bytesize, 8);
RACETRACK_FIELD_AT(cuMemAllocAsync_params, hStream, 16);
RACETRACK_FIELD_AT(cuMemAllocAsync_ptsz_params, bytesize, 8);
RACETRACK_FIELD_AT(cuMemAllocAsync_ptsz_params, hStream, 16);
RACETRACK_FIELD_AT(cuMemAllocFromPoolAsync_params, bytesize, 8);
RACETRACK_FIELD_AT(cuMemAllocFromPoolAsync_params, hStream, 24);
RACETRACK_FIELD_AT(cuMemAllocFromPoolAsync_ptsz_params, bytesize, 8);
RACETRACK_FIELD_AT(cuMemAllocFromPoolAsync_ptsz_params, hStream, 24);
RACETRACK_FIELD_AT(cuMemFreeAsync_params, dptr, 0);
RACETRACK_FIELD_AT(cuMemFreeAsync_params, hStream, 8);
RACETRACK_FIELD_AT(cuMemFreeAsync_ptsz_params, dptr, 0);
RACETRACK_FIELD_AT(cuMemFreeAsync_ptsz_params, hStream, 8);
RACETRACK_FIELD_AT(cuMemMap_params, ptr, 0);
RACETRACK_FIELD_AT(cuMemMap_params, size, 8);
RACETRACK_FIELD_AT(cuMemMap_params, handle, 24);
RACETRACK_FIELD_AT(cuMemUnmap_params, ptr, 0);
RACETRACK_FIELD_AT(cuMemUnmap_params, size, 8);

// A memory block's address, whichever name the call gives it.
template <class Params>
uint64_t block_address(const Params& p) {
  if constexpr (requires(const Params& q) { q.devPtr; }) {
    return u64(p.devPtr);
  } else if constexpr (requires(const Params& q) { q.dptr; }) {
    return u64(p.dptr);
  } else if constexpr (requires(const Params& q) { q.ptr; }) {
    return u64(p.ptr);
  } else {
    return u64(p.p);
  }
}

template <class Params>
uint64_t block_size(const Params& p) {
  if constexpr (requires(const Params& q) { q.size; }) {
    return p.size;
  } else {
    return p.bytesize;
  }
}

// Allocations: the size, and flags and stream where the call has them.
template <class Params>
bool read_alloc(const Params& p, ApiEvent& event) {
  event.bytes = block_size(p);
  read_flags(p, event);
  return read_stream(p, event);
}

// Frees and unregistrations: the address, and the stream of async frees.
template <class Params>
bool read_free(const Params& p, ApiEvent& event) {
  event.dst = block_address(p);
  return read_stream(p, event);
}

// Host registrations and virtual memory (un)mappings.
template <class Params>
bool read_range(const Params& p, ApiEvent& event) {
  event.dst = block_address(p);
  event.bytes = block_size(p);
  return true;
}

// ---------------------------------------------------------------------------
// Graph launches: the CUPTI exec id is what kernel records carry (§6.4).

RACETRACK_FIELD_AT(cudaGraphLaunch_v10000_params, graphExec, 0);
RACETRACK_FIELD_AT(cudaGraphLaunch_v10000_params, stream, 8);
RACETRACK_FIELD_AT(cudaGraphLaunch_ptsz_v10000_params, graphExec, 0);
RACETRACK_FIELD_AT(cudaGraphLaunch_ptsz_v10000_params, stream, 8);
// cuGraphLaunch_params calls its CUgraphExec `hGraph`; the _ptsz twin says hGraphExec.
RACETRACK_FIELD_AT(cuGraphLaunch_params, hGraph, 0);
RACETRACK_FIELD_AT(cuGraphLaunch_params, hStream, 8);
RACETRACK_FIELD_AT(cuGraphLaunch_ptsz_params, hGraphExec, 0);
RACETRACK_FIELD_AT(cuGraphLaunch_ptsz_params, hStream, 8);

template <class Params>
bool read_graph_launch(const Params& p, DriverQueries& queries, ApiEvent& event) {
  if constexpr (requires(const Params& q) { q.graphExec; }) {
    event.handle = u64(p.graphExec);
  } else if constexpr (requires(const Params& q) { q.hGraphExec; }) {
    event.handle = u64(p.hGraphExec);
  } else {
    event.handle = u64(p.hGraph);
  }
  if (event.handle != 0) event.value = static_cast<uint32_t>(queries.graph_exec_id(event.handle));
  return read_stream(p, event);
}

// ---------------------------------------------------------------------------
// ENTER: one case per recorded call; false for calls without one.

bool read_runtime_enter(CUpti_CallbackId cbid, const void* p, DriverQueries& queries, ApiEvent& event) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
      return read_runtime_copy(as<cudaMemcpy_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000:
      return read_runtime_copy(as<cudaMemcpy_ptds_v7000_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
      return read_runtime_copy(as<cudaMemcpyAsync_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000:
      return read_runtime_copy(as<cudaMemcpyAsync_ptsz_v7000_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
      return read_runtime_memset(as<cudaMemset_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000:
      return read_runtime_memset(as<cudaMemset_ptds_v7000_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
      return read_runtime_memset(as<cudaMemsetAsync_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000:
      return read_runtime_memset(as<cudaMemsetAsync_ptsz_v7000_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
      return read_event_on_stream(as<cudaEventRecord_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000:
      return read_event_on_stream(as<cudaEventRecord_ptsz_v7000_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010:
      return read_event_on_stream(as<cudaEventRecordWithFlags_v11010_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010:
      return read_event_on_stream(as<cudaEventRecordWithFlags_ptsz_v11010_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
      return read_event_on_stream(as<cudaStreamWaitEvent_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000:
      return read_event_on_stream(as<cudaStreamWaitEvent_ptsz_v7000_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
      return read_stream(as<cudaStreamSynchronize_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000:
      return read_stream(as<cudaStreamSynchronize_ptsz_v7000_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020:
      return read_stream(as<cudaStreamQuery_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000:
      return read_stream(as<cudaStreamQuery_ptsz_v7000_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
      return read_event(as<cudaEventSynchronize_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020:
      return read_event(as<cudaEventQuery_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020:  // its only argument is read at EXIT
      return true;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000:
      return read_stream_create(as<cudaStreamCreateWithFlags_v5000_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050:
      return read_stream_create(as<cudaStreamCreateWithPriority_v5050_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050:
      return read_stream(as<cudaStreamDestroy_v5050_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020:
      return read_event(as<cudaEventDestroy_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020: return read_alloc(as<cudaMalloc_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020: return read_free(as<cudaFree_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020:
      return read_alloc(as<cudaMallocHost_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020:
      return read_alloc(as<cudaHostAlloc_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
      return read_free(as<cudaFreeHost_v3020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000: {
      const auto& params = as<cudaHostRegister_v4000_params>(p);
      read_flags(params, event);
      return read_range(params, event);
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000:
      return read_free(as<cudaHostUnregister_v4000_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
      return read_alloc(as<cudaMallocAsync_v11020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020:
      return read_alloc(as<cudaMallocAsync_ptsz_v11020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020:
      return read_alloc(as<cudaMallocFromPoolAsync_v11020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020:
      return read_alloc(as<cudaMallocFromPoolAsync_ptsz_v11020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020:
      return read_free(as<cudaFreeAsync_v11020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020:
      return read_free(as<cudaFreeAsync_ptsz_v11020_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
      return read_graph_launch(as<cudaGraphLaunch_v10000_params>(p), queries, event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000:
      return read_graph_launch(as<cudaGraphLaunch_ptsz_v10000_params>(p), queries, event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000:
      return read_capture_begin(as<cudaStreamBeginCapture_v10000_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000:
      return read_capture_begin(as<cudaStreamBeginCapture_ptsz_v10000_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000:
      return read_stream(as<cudaStreamEndCapture_v10000_params>(p), event);
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000:
      return read_stream(as<cudaStreamEndCapture_ptsz_v10000_params>(p), event);
    default: return false;
  }
}

bool read_driver_enter(CUpti_CallbackId cbid, const void* p, DriverQueries& queries, ApiEvent& event,
                       Payload& payload) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
      return read_launch(as<cuLaunchKernel_params>(p), queries, event, payload);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      return read_launch(as<cuLaunchKernel_ptsz_params>(p), queries, event, payload);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
      return read_launch_ex(as<cuLaunchKernelEx_params>(p), queries, event, payload);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
      return read_launch_ex(as<cuLaunchKernelEx_ptsz_params>(p), queries, event, payload);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      return read_launch(as<cuLaunchCooperativeKernel_params>(p), queries, event, payload);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      return read_launch(as<cuLaunchCooperativeKernel_ptsz_params>(p), queries, event, payload);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy: return read_copy_unified(as<cuMemcpy_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds: return read_copy_unified(as<cuMemcpy_ptds_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync: return read_copy_unified(as<cuMemcpyAsync_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz:
      return read_copy_unified(as<cuMemcpyAsync_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2: return read_copy_htod(as<cuMemcpyHtoD_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds:
      return read_copy_htod(as<cuMemcpyHtoD_v2_ptds_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
      return read_copy_htod(as<cuMemcpyHtoDAsync_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz:
      return read_copy_htod(as<cuMemcpyHtoDAsync_v2_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2: return read_copy_dtoh(as<cuMemcpyDtoH_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
      return read_copy_dtoh(as<cuMemcpyDtoH_v2_ptds_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
      return read_copy_dtoh(as<cuMemcpyDtoHAsync_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz:
      return read_copy_dtoh(as<cuMemcpyDtoHAsync_v2_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2: return read_copy_dtod(as<cuMemcpyDtoD_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds:
      return read_copy_dtod(as<cuMemcpyDtoD_v2_ptds_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
      return read_copy_dtod(as<cuMemcpyDtoDAsync_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz:
      return read_copy_dtod(as<cuMemcpyDtoDAsync_v2_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2: return read_driver_memset(as<cuMemsetD8_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds:
      return read_driver_memset(as<cuMemsetD8_v2_ptds_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2:
      return read_driver_memset(as<cuMemsetD16_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds:
      return read_driver_memset(as<cuMemsetD16_v2_ptds_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2:
      return read_driver_memset(as<cuMemsetD32_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds:
      return read_driver_memset(as<cuMemsetD32_v2_ptds_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
      return read_driver_memset(as<cuMemsetD8Async_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz:
      return read_driver_memset(as<cuMemsetD8Async_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async:
      return read_driver_memset(as<cuMemsetD16Async_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz:
      return read_driver_memset(as<cuMemsetD16Async_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
      return read_driver_memset(as<cuMemsetD32Async_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz:
      return read_driver_memset(as<cuMemsetD32Async_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
      return read_event_on_stream(as<cuEventRecord_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz:
      return read_event_on_stream(as<cuEventRecord_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
      return read_event_on_stream(as<cuEventRecordWithFlags_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz:
      return read_event_on_stream(as<cuEventRecordWithFlags_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
      return read_event_on_stream(as<cuStreamWaitEvent_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
      return read_event_on_stream(as<cuStreamWaitEvent_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
      return read_stream(as<cuStreamSynchronize_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
      return read_stream(as<cuStreamSynchronize_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamQuery: return read_stream(as<cuStreamQuery_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz:
      return read_stream(as<cuStreamQuery_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
      return read_event(as<cuEventSynchronize_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuEventQuery: return read_event(as<cuEventQuery_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
    case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2: return true;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamCreate:
      return read_stream_create(as<cuStreamCreate_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority:
      return read_stream_create(as<cuStreamCreateWithPriority_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2:
      return read_stream(as<cuStreamDestroy_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2: return read_event(as<cuEventDestroy_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: return read_alloc(as<cuMemAlloc_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2: return read_free(as<cuMemFree_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2: return read_alloc(as<cuMemAllocHost_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc: return read_alloc(as<cuMemHostAlloc_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost: return read_free(as<cuMemFreeHost_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2: {
      const auto& params = as<cuMemHostRegister_v2_params>(p);
      read_flags(params, event);
      return read_range(params, event);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister:
      return read_free(as<cuMemHostUnregister_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync: return read_alloc(as<cuMemAllocAsync_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
      return read_alloc(as<cuMemAllocAsync_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
      return read_alloc(as<cuMemAllocFromPoolAsync_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
      return read_alloc(as<cuMemAllocFromPoolAsync_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync: return read_free(as<cuMemFreeAsync_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
      return read_free(as<cuMemFreeAsync_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap: {
      const auto& params = as<cuMemMap_params>(p);
      event.handle = params.handle;  // the physical allocation (cuMemCreate) mapped there
      return read_range(params, event);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap: return read_range(as<cuMemUnmap_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
      return read_graph_launch(as<cuGraphLaunch_params>(p), queries, event);
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
      return read_graph_launch(as<cuGraphLaunch_ptsz_params>(p), queries, event);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
      return read_stream(as<cuStreamBeginCapture_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
      return read_stream(as<cuStreamBeginCapture_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
      return read_capture_begin(as<cuStreamBeginCapture_v2_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
      return read_capture_begin(as<cuStreamBeginCapture_v2_ptsz_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
      return read_stream(as<cuStreamEndCapture_params>(p), event);
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz:
      return read_stream(as<cuStreamEndCapture_ptsz_params>(p), event);
    default: return false;
  }
}

// ---------------------------------------------------------------------------
// EXIT: out-parameters of successful calls.

RACETRACK_FIELD_AT(cudaMalloc_v3020_params, devPtr, 0);
RACETRACK_FIELD_AT(cudaMallocHost_v3020_params, ptr, 0);
RACETRACK_FIELD_AT(cudaHostAlloc_v3020_params, pHost, 0);
RACETRACK_FIELD_AT(cudaMallocAsync_v11020_params, devPtr, 0);
RACETRACK_FIELD_AT(cudaMallocAsync_ptsz_v11020_params, devPtr, 0);
RACETRACK_FIELD_AT(cudaMallocFromPoolAsync_v11020_params, ptr, 0);
RACETRACK_FIELD_AT(cudaMallocFromPoolAsync_ptsz_v11020_params, ptr, 0);
RACETRACK_FIELD_AT(cudaStreamCreate_v3020_params, pStream, 0);
RACETRACK_FIELD_AT(cudaStreamCreateWithFlags_v5000_params, pStream, 0);
RACETRACK_FIELD_AT(cudaStreamCreateWithPriority_v5050_params, pStream, 0);
RACETRACK_FIELD_AT(cudaStreamEndCapture_v10000_params, pGraph, 8);
RACETRACK_FIELD_AT(cudaStreamEndCapture_ptsz_v10000_params, pGraph, 8);

void read_runtime_exit(CUpti_CallbackId cbid, const void* p, ApiEvent& event) {
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020:
      event.dst = out_value(as<cudaMalloc_v3020_params>(p).devPtr);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020:
      event.dst = out_value(as<cudaMallocHost_v3020_params>(p).ptr);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020:
      event.dst = out_value(as<cudaHostAlloc_v3020_params>(p).pHost);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
      event.dst = out_value(as<cudaMallocAsync_v11020_params>(p).devPtr);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020:
      event.dst = out_value(as<cudaMallocAsync_ptsz_v11020_params>(p).devPtr);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020:
      event.dst = out_value(as<cudaMallocFromPoolAsync_v11020_params>(p).ptr);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020:
      event.dst = out_value(as<cudaMallocFromPoolAsync_ptsz_v11020_params>(p).ptr);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020:
      event.stream = out_value(as<cudaStreamCreate_v3020_params>(p).pStream);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000:
      event.stream = out_value(as<cudaStreamCreateWithFlags_v5000_params>(p).pStream);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050:
      event.stream = out_value(as<cudaStreamCreateWithPriority_v5050_params>(p).pStream);
      break;
    // The captured graph, to tie it to its instantiation.
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000:
      event.handle = out_value(as<cudaStreamEndCapture_v10000_params>(p).pGraph);
      break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000:
      event.handle = out_value(as<cudaStreamEndCapture_ptsz_v10000_params>(p).pGraph);
      break;
    default: break;
  }
}

RACETRACK_FIELD_AT(cuMemAlloc_v2_params, dptr, 0);
RACETRACK_FIELD_AT(cuMemAllocHost_v2_params, pp, 0);
RACETRACK_FIELD_AT(cuMemHostAlloc_params, pp, 0);
RACETRACK_FIELD_AT(cuMemAllocAsync_params, dptr, 0);
RACETRACK_FIELD_AT(cuMemAllocAsync_ptsz_params, dptr, 0);
RACETRACK_FIELD_AT(cuMemAllocFromPoolAsync_params, dptr, 0);
RACETRACK_FIELD_AT(cuMemAllocFromPoolAsync_ptsz_params, dptr, 0);
RACETRACK_FIELD_AT(cuStreamCreate_params, phStream, 0);
RACETRACK_FIELD_AT(cuStreamCreateWithPriority_params, phStream, 0);
RACETRACK_FIELD_AT(cuStreamEndCapture_params, phGraph, 8);
RACETRACK_FIELD_AT(cuStreamEndCapture_ptsz_params, phGraph, 8);

void read_driver_exit(CUpti_CallbackId cbid, const void* p, ApiEvent& event) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2:
      event.dst = out_value(as<cuMemAlloc_v2_params>(p).dptr);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2:
      event.dst = out_value(as<cuMemAllocHost_v2_params>(p).pp);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc:
      event.dst = out_value(as<cuMemHostAlloc_params>(p).pp);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
      event.dst = out_value(as<cuMemAllocAsync_params>(p).dptr);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
      event.dst = out_value(as<cuMemAllocAsync_ptsz_params>(p).dptr);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
      event.dst = out_value(as<cuMemAllocFromPoolAsync_params>(p).dptr);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
      event.dst = out_value(as<cuMemAllocFromPoolAsync_ptsz_params>(p).dptr);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamCreate:
      event.stream = out_value(as<cuStreamCreate_params>(p).phStream);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority:
      event.stream = out_value(as<cuStreamCreateWithPriority_params>(p).phStream);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture:
      event.handle = out_value(as<cuStreamEndCapture_params>(p).phGraph);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz:
      event.handle = out_value(as<cuStreamEndCapture_ptsz_params>(p).phGraph);
      break;
    default: break;
  }
}

// Kinds whose `stream` names a stream to resolve to a CUPTI stream id.
bool names_stream(ApiKind kind) {
  switch (kind) {
    case kLaunch:
    case kMemcpy:
    case kMemset:
    case kEventRecord:
    case kStreamWait:
    case kStreamSync:
    case kStreamQuery:
    case kStreamCreate:
    case kStreamDestroy:
    case kMallocAsync:
    case kFreeAsync:
    case kGraphLaunch:
    case kCaptureBegin:
    case kCaptureEnd: return true;
    default: return false;
  }
}

void resolve_stream_id(const CUpti_CallbackData& data, DriverQueries& queries, ApiEvent& event) {
  if (data.context == nullptr) return;  // a thread's first call, at ENTER (§2.4)
  event.stream_id = queries.stream_id(data.context, event.stream, (event.flags & kFlagPerThreadStream) != 0);
}

// ---------------------------------------------------------------------------
// NVTX.

RACETRACK_FIELD_AT(nvtxMarkA_params, message, 0);
RACETRACK_FIELD_AT(nvtxRangePushA_params, message, 0);
RACETRACK_FIELD_AT(nvtxMarkEx_params, eventAttrib, 0);
RACETRACK_FIELD_AT(nvtxRangePushEx_params, eventAttrib, 0);
RACETRACK_FIELD_AT(nvtxDomainMarkEx_params, core, 8);
RACETRACK_FIELD_AT(nvtxDomainRangePushEx_params, core, 8);
RACETRACK_FIELD_AT(nvtxEventAttributes_t, messageType, 32);
RACETRACK_FIELD_AT(nvtxEventAttributes_t, message, 40);

// Longer messages are cut to this many bytes.
constexpr size_t kMaxNvtxBytes = 4096;

const char* ascii_message(const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr || attributes->messageType != NVTX_MESSAGE_TYPE_ASCII) return nullptr;
  return attributes->message.ascii;
}

const char* nvtx_message(CUpti_CallbackId cbid, const void* p) {
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxMarkA: return as<nvtxMarkA_params>(p).message;
    case CUPTI_CBID_NVTX_nvtxRangePushA: return as<nvtxRangePushA_params>(p).message;
    case CUPTI_CBID_NVTX_nvtxMarkEx: return ascii_message(as<nvtxMarkEx_params>(p).eventAttrib);
    case CUPTI_CBID_NVTX_nvtxRangePushEx: return ascii_message(as<nvtxRangePushEx_params>(p).eventAttrib);
    case CUPTI_CBID_NVTX_nvtxDomainMarkEx:
      return ascii_message(as<nvtxDomainMarkEx_params>(p).core.eventAttrib);
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
      return ascii_message(as<nvtxDomainRangePushEx_params>(p).core.eventAttrib);
    default: return nullptr;
  }
}

// Appends the text's bytes (at most kMaxNvtxBytes), zero-padded to whole
// words; nothing when they do not fit.
void append_text(const char* text, ApiEvent& event, Payload& payload) {
  event.payload_offset = payload.used;
  event.payload_words = 0;
  event.payload_bytes = 0;
  if (text == nullptr || payload.words == nullptr || payload.used > payload.capacity) return;
  const size_t length = strnlen(text, kMaxNvtxBytes);
  const auto words = static_cast<uint32_t>((length + 7) / 8);
  if (payload.capacity - payload.used < words) return;
  uint64_t* destination = payload.words + payload.used;
  std::fill_n(destination, words, uint64_t{0});
  std::memcpy(destination, text, length);
  event.payload_words = words;
  event.payload_bytes = static_cast<uint32_t>(length);
  payload.used += words;
}

// ---------------------------------------------------------------------------
// Resources.

RACETRACK_FIELD_AT(CUpti_GraphData, node, 16);
RACETRACK_FIELD_AT(CUpti_GraphData, originalNode, 24);
RACETRACK_FIELD_AT(CUpti_GraphData, nodeType, 32);
RACETRACK_FIELD_AT(CUpti_GraphData, dependency, 40);
RACETRACK_FIELD_AT(CUpti_GraphData, graphExec, 48);

// The callback structs themselves.
RACETRACK_FIELD_AT(CUpti_CallbackData, functionParams, 16);
RACETRACK_FIELD_AT(CUpti_CallbackData, functionReturnValue, 24);
RACETRACK_FIELD_AT(CUpti_CallbackData, context, 40);
RACETRACK_FIELD_AT(CUpti_CallbackData, correlationId, 64);
RACETRACK_FIELD_AT(CUpti_NvtxData, functionParams, 8);
RACETRACK_FIELD_AT(CUpti_ResourceData, context, 0);
RACETRACK_FIELD_AT(CUpti_ResourceData, resourceDescriptor, 16);

#undef RACETRACK_FIELD_AT

}  // namespace

std::span<const CallbackId> subscribed_callbacks() {
  return kSubscribed;
}

bool decode_api_enter(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data,
                      DriverQueries& queries, ApiEvent& event, Payload& payload) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return false;
  const CallSpec* call = find_call(domain, cbid);
  if (call == nullptr) return false;
  event.domain = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? ApiDomain::kRuntime : ApiDomain::kDriver;
  event.cbid = cbid;
  event.correlation = data.correlationId;
  event.flags |= call->flags;
  event.payload_offset = payload.used;
  // Without parameters the call is still recorded, with its handles unknown.
  if (data.functionParams != nullptr) {
    const bool read = domain == CUPTI_CB_DOMAIN_RUNTIME_API
                          ? read_runtime_enter(cbid, data.functionParams, queries, event)
                          : read_driver_enter(cbid, data.functionParams, queries, event, payload);
    if (!read) return false;
  }
  event.kind = call->kind;
  // At EXIT the stream is gone.
  if (event.kind == kStreamDestroy) resolve_stream_id(data, queries, event);
  return true;
}

void decode_api_exit(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data,
                     DriverQueries& queries, ApiEvent& event) {
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  if (data.functionReturnValue != nullptr) {
    event.result = runtime ? static_cast<int32_t>(*static_cast<const cudaError_t*>(data.functionReturnValue))
                           : static_cast<int32_t>(*static_cast<const CUresult*>(data.functionReturnValue));
  }
  if (data.context != nullptr) event.context_id = queries.context_id(data.context);
  // A failed call's out-parameters and handles are not to be trusted; a
  // query of unfinished work still names a live stream.
  const bool succeeded = event.result == 0;
  if (succeeded && data.functionParams != nullptr) {
    if (runtime) {
      read_runtime_exit(cbid, data.functionParams, event);
    } else {
      read_driver_exit(cbid, data.functionParams, event);
    }
  }
  const bool stream_alive = (succeeded || event.result == kNotReady) && event.kind != kStreamDestroy;
  if (stream_alive && names_stream(event.kind)) resolve_stream_id(data, queries, event);
}

bool decode_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData& data, ApiEvent& event, Payload& payload) {
  const CallSpec* call = find_call(CUPTI_CB_DOMAIN_NVTX, cbid);
  if (call == nullptr) return false;
  event.kind = call->kind;
  event.domain = ApiDomain::kNvtx;
  event.cbid = cbid;
  const char* message = data.functionParams != nullptr ? nvtx_message(cbid, data.functionParams) : nullptr;
  append_text(message, event, payload);
  return true;
}

bool decode_resource(CUpti_CallbackId cbid, const CUpti_ResourceData& data, DriverQueries& queries,
                     ApiEvent& event) {
  const CallSpec* call = find_call(CUPTI_CB_DOMAIN_RESOURCE, cbid);
  if (call == nullptr || data.resourceDescriptor == nullptr) return false;
  const auto& graph = *static_cast<const CUpti_GraphData*>(data.resourceDescriptor);
  event.kind = call->kind;
  event.domain = ApiDomain::kResource;
  event.cbid = cbid;
  if (data.context != nullptr) event.context_id = queries.context_id(data.context);
  event.handle = queries.graph_node_id(u64(graph.node));
  switch (call->kind) {
    case kGraphNodeCreated: event.value = static_cast<uint32_t>(graph.nodeType); break;
    case kGraphNodeCloned:
      event.src = queries.graph_node_id(u64(graph.originalNode));
      if (graph.graphExec != nullptr) event.dst = queries.graph_exec_id(u64(graph.graphExec));
      break;
    case kGraphDependency: event.src = queries.graph_node_id(u64(graph.dependency)); break;
    default: break;
  }
  return true;
}

}  // namespace racetrack::capture
