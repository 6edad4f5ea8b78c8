// Memory: allocations and frees (device, host, stream-ordered), host
// registrations and virtual memory (un)mappings. Allocated addresses are
// out-parameters read at EXIT. Left out as a legacy id with no CUDA 13.0
// parameter struct or entry point: cuMemHostAlloc_v2.
#include "callback_decoder_family.h"

namespace racetrack::capture::decoder {
namespace {

using enum ApiKind;

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

template <class Params>
bool read_host_register(const Params& p, ApiEvent& event) {
  read_flags(p, event);
  return read_range(p, event);
}

bool read_map(const cuMemMap_params& p, ApiEvent& event) {
  event.handle = p.handle;  // the physical allocation (cuMemCreate) mapped there
  return read_range(p, event);
}

// EXIT: the allocated address.
RACETRACK_FIELD_AT(cudaMalloc_v3020_params, devPtr, 0);
RACETRACK_FIELD_AT(cudaMallocHost_v3020_params, ptr, 0);
RACETRACK_FIELD_AT(cudaHostAlloc_v3020_params, pHost, 0);
RACETRACK_FIELD_AT(cudaMallocAsync_v11020_params, devPtr, 0);
RACETRACK_FIELD_AT(cudaMallocAsync_ptsz_v11020_params, devPtr, 0);
RACETRACK_FIELD_AT(cudaMallocFromPoolAsync_v11020_params, ptr, 0);
RACETRACK_FIELD_AT(cudaMallocFromPoolAsync_ptsz_v11020_params, ptr, 0);
RACETRACK_FIELD_AT(cuMemAlloc_v2_params, dptr, 0);
RACETRACK_FIELD_AT(cuMemAllocHost_v2_params, pp, 0);
RACETRACK_FIELD_AT(cuMemHostAlloc_params, pp, 0);
RACETRACK_FIELD_AT(cuMemAllocAsync_params, dptr, 0);
RACETRACK_FIELD_AT(cuMemAllocAsync_ptsz_params, dptr, 0);
RACETRACK_FIELD_AT(cuMemAllocFromPoolAsync_params, dptr, 0);
RACETRACK_FIELD_AT(cuMemAllocFromPoolAsync_ptsz_params, dptr, 0);

template <class Params>
void read_allocated(const Params& p, ApiEvent& event) {
  if constexpr (requires(const Params& q) { q.devPtr; }) {
    event.dst = out_value(p.devPtr);
  } else if constexpr (requires(const Params& q) { q.dptr; }) {
    event.dst = out_value(p.dptr);
  } else if constexpr (requires(const Params& q) { q.ptr; }) {
    event.dst = out_value(p.ptr);
  } else if constexpr (requires(const Params& q) { q.pHost; }) {
    event.dst = out_value(p.pHost);
  } else {
    event.dst = out_value(p.pp);
  }
}

// An allocation: its size at ENTER, its address at EXIT.
template <class Params>
constexpr CallSpec rt_alloc(CUpti_runtime_api_trace_cbid cbid, ApiKind kind, uint16_t flags = 0) {
  return rt(cbid, kind, flags, in<read_alloc<Params>>, out<read_allocated<Params>>);
}
template <class Params>
constexpr CallSpec drv_alloc(CUpti_driver_api_trace_cbid cbid, ApiKind kind, uint16_t flags = 0) {
  return drv(cbid, kind, flags, in<read_alloc<Params>>, out<read_allocated<Params>>);
}

constexpr CallSpec kMemoryCalls[] = {
    rt_alloc<cudaMalloc_v3020_params>(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, kMalloc),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, kFree, 0, in<read_free<cudaFree_v3020_params>>),
    rt_alloc<cudaMallocHost_v3020_params>(CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020, kHostAlloc),
    rt_alloc<cudaHostAlloc_v3020_params>(CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020, kHostAlloc),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020, kHostFree, 0, in<read_free<cudaFreeHost_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000, kHostRegister, 0,
       in<read_host_register<cudaHostRegister_v4000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000, kHostUnregister, 0,
       in<read_free<cudaHostUnregister_v4000_params>>),
    rt_alloc<cudaMallocAsync_v11020_params>(CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020, kMallocAsync,
                                            kAsync),
    rt_alloc<cudaMallocAsync_ptsz_v11020_params>(CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020,
                                                 kMallocAsync, kAsync | kPts),
    rt_alloc<cudaMallocFromPoolAsync_v11020_params>(CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020,
                                                    kMallocAsync, kAsync),
    rt_alloc<cudaMallocFromPoolAsync_ptsz_v11020_params>(
        CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020, kMallocAsync, kAsync | kPts),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020, kFreeAsync, kAsync,
       in<read_free<cudaFreeAsync_v11020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020, kFreeAsync, kAsync | kPts,
       in<read_free<cudaFreeAsync_ptsz_v11020_params>>),

    drv_alloc<cuMemAlloc_v2_params>(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, kMalloc),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, kFree, 0, in<read_free<cuMemFree_v2_params>>),
    drv_alloc<cuMemAllocHost_v2_params>(CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2, kHostAlloc),
    drv_alloc<cuMemHostAlloc_params>(CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc, kHostAlloc),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost, kHostFree, 0, in<read_free<cuMemFreeHost_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2, kHostRegister, 0,
        in<read_host_register<cuMemHostRegister_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister, kHostUnregister, 0,
        in<read_free<cuMemHostUnregister_params>>),
    drv_alloc<cuMemAllocAsync_params>(CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync, kMallocAsync, kAsync),
    drv_alloc<cuMemAllocAsync_ptsz_params>(CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz, kMallocAsync,
                                           kAsync | kPts),
    drv_alloc<cuMemAllocFromPoolAsync_params>(CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync, kMallocAsync,
                                              kAsync),
    drv_alloc<cuMemAllocFromPoolAsync_ptsz_params>(CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz,
                                                   kMallocAsync, kAsync | kPts),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync, kFreeAsync, kAsync, in<read_free<cuMemFreeAsync_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz, kFreeAsync, kAsync | kPts,
        in<read_free<cuMemFreeAsync_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemMap, kVmmMap, 0, in<read_map>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemUnmap, kVmmUnmap, 0, in<read_range<cuMemUnmap_params>>),
};
static_assert(!has_duplicates(kMemoryCalls));

}  // namespace

std::span<const CallSpec> memory_calls() {
  return kMemoryCalls;
}

}  // namespace racetrack::capture::decoder
