// Memsets: the first byte, the size, the value and its element size.
// Synchronous variants have no stream field. Left out as legacy ids with no
// CUDA 13.0 parameter struct or entry point: the pre-_v2 cuMemsetD* ids.
#include "callback_decoder_family.h"

namespace racetrack::capture::decoder {
namespace {

using enum ApiKind;

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

constexpr CallSpec kMemsetCalls[] = {
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020, kMemset, 0,
       in<read_runtime_memset<cudaMemset_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000, kMemset, kPts,
       in<read_runtime_memset<cudaMemset_ptds_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, kMemset, kAsync,
       in<read_runtime_memset<cudaMemsetAsync_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000, kMemset, kAsync | kPts,
       in<read_runtime_memset<cudaMemsetAsync_ptsz_v7000_params>>),

    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, kMemset, 0, in<read_driver_memset<cuMemsetD8_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds, kMemset, kPts,
        in<read_driver_memset<cuMemsetD8_v2_ptds_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2, kMemset, 0, in<read_driver_memset<cuMemsetD16_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds, kMemset, kPts,
        in<read_driver_memset<cuMemsetD16_v2_ptds_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, kMemset, 0, in<read_driver_memset<cuMemsetD32_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds, kMemset, kPts,
        in<read_driver_memset<cuMemsetD32_v2_ptds_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async, kMemset, kAsync,
        in<read_driver_memset<cuMemsetD8Async_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz, kMemset, kAsync | kPts,
        in<read_driver_memset<cuMemsetD8Async_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async, kMemset, kAsync,
        in<read_driver_memset<cuMemsetD16Async_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz, kMemset, kAsync | kPts,
        in<read_driver_memset<cuMemsetD16Async_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async, kMemset, kAsync,
        in<read_driver_memset<cuMemsetD32Async_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz, kMemset, kAsync | kPts,
        in<read_driver_memset<cuMemsetD32Async_ptsz_params>>),
};
static_assert(!has_duplicates(kMemsetCalls));

}  // namespace

std::span<const CallSpec> memset_calls() {
  return kMemsetCalls;
}

}  // namespace racetrack::capture::decoder
