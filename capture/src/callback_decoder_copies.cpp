// Copies: both ends, the size and the direction. Synchronous variants have
// no stream field. Left out as legacy ids with no CUDA 13.0 parameter
// struct or entry point: cuMemcpy_v2 and the pre-_v2 cuMemcpy?to? ids.
#include "callback_decoder_family.h"

namespace racetrack::capture::decoder {
namespace {

using enum ApiKind;

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

// cudaMemcpyPeer[Async]: device to device across devices. The copy's
// activity record (PTOP, with both device ids) makes it a COPY_P2P; without
// one it is a device-to-device copy.
template <class Params>
bool read_runtime_peer_copy(const Params& p, ApiEvent& event) {
  RACETRACK_FIELD_AT(Params, dst, 0);
  RACETRACK_FIELD_AT(Params, dstDevice, 8);
  RACETRACK_FIELD_AT(Params, src, 16);
  RACETRACK_FIELD_AT(Params, srcDevice, 24);
  RACETRACK_FIELD_AT(Params, count, 32);
  if constexpr (requires(const Params& q) { q.stream; }) RACETRACK_FIELD_AT(Params, stream, 40);
  event.dst = u64(p.dst);
  event.src = u64(p.src);
  event.bytes = p.count;
  event.value = kDeviceToDevice;
  return read_stream(p, event);
}

// cuMemcpyPeer[Async]: the ends are named with their contexts.
template <class Params>
bool read_driver_peer_copy(const Params& p, ApiEvent& event) {
  RACETRACK_FIELD_AT(Params, dstDevice, 0);
  RACETRACK_FIELD_AT(Params, srcDevice, 16);
  RACETRACK_FIELD_AT(Params, ByteCount, 32);
  if constexpr (requires(const Params& q) { q.hStream; }) RACETRACK_FIELD_AT(Params, hStream, 40);
  event.dst = p.dstDevice;
  event.src = p.srcDevice;
  event.bytes = p.ByteCount;
  event.value = kDeviceToDevice;
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

constexpr CallSpec kCopyCalls[] = {
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, kMemcpy, 0, in<read_runtime_copy<cudaMemcpy_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000, kMemcpy, kPts,
       in<read_runtime_copy<cudaMemcpy_ptds_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, kMemcpy, kAsync,
       in<read_runtime_copy<cudaMemcpyAsync_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000, kMemcpy, kAsync | kPts,
       in<read_runtime_copy<cudaMemcpyAsync_ptsz_v7000_params>>),

    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000, kMemcpy, 0,
       in<read_runtime_peer_copy<cudaMemcpyPeer_v4000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000, kMemcpy, kAsync,
       in<read_runtime_peer_copy<cudaMemcpyPeerAsync_v4000_params>>),

    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy, kMemcpy, 0, in<read_copy_unified<cuMemcpy_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds, kMemcpy, kPts, in<read_copy_unified<cuMemcpy_ptds_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync, kMemcpy, kAsync, in<read_copy_unified<cuMemcpyAsync_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz, kMemcpy, kAsync | kPts,
        in<read_copy_unified<cuMemcpyAsync_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, kMemcpy, 0, in<read_copy_htod<cuMemcpyHtoD_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds, kMemcpy, kPts,
        in<read_copy_htod<cuMemcpyHtoD_v2_ptds_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, kMemcpy, 0, in<read_copy_dtoh<cuMemcpyDtoH_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds, kMemcpy, kPts,
        in<read_copy_dtoh<cuMemcpyDtoH_v2_ptds_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2, kMemcpy, 0, in<read_copy_dtod<cuMemcpyDtoD_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds, kMemcpy, kPts,
        in<read_copy_dtod<cuMemcpyDtoD_v2_ptds_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, kMemcpy, kAsync,
        in<read_copy_htod<cuMemcpyHtoDAsync_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz, kMemcpy, kAsync | kPts,
        in<read_copy_htod<cuMemcpyHtoDAsync_v2_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2, kMemcpy, kAsync,
        in<read_copy_dtoh<cuMemcpyDtoHAsync_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz, kMemcpy, kAsync | kPts,
        in<read_copy_dtoh<cuMemcpyDtoHAsync_v2_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2, kMemcpy, kAsync,
        in<read_copy_dtod<cuMemcpyDtoDAsync_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz, kMemcpy, kAsync | kPts,
        in<read_copy_dtod<cuMemcpyDtoDAsync_v2_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer, kMemcpy, 0, in<read_driver_peer_copy<cuMemcpyPeer_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync, kMemcpy, kAsync,
        in<read_driver_peer_copy<cuMemcpyPeerAsync_params>>),
};
static_assert(!has_duplicates(kCopyCalls));

}  // namespace

std::span<const CallSpec> copy_calls() {
  return kCopyCalls;
}

}  // namespace racetrack::capture::decoder
