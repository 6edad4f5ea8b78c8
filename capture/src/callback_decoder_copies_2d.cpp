// Pitched copies: cudaMemcpy2D[Async], cudaMemcpy3D[Async], and the
// driver's cuMemcpy2D[Async]_v2, cuMemcpy2DUnaligned and
// cuMemcpy3D[Async]_v2, between pitched linear memory or CUDA arrays. The
// shape goes to the payload (copy_shape_words.h); an array side keeps its
// handle and position, which the assembler turns into an address inside
// the array's range (docs/capture.md).
#include "callback_decoder_family.h"
#include "copy_sides.h"

namespace racetrack::capture::decoder {
namespace {

using enum ApiKind;

template <class Params>
bool read_runtime_copy_2d(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, dst, 0);
  RACETRACK_FIELD_AT(Params, dpitch, 8);
  RACETRACK_FIELD_AT(Params, src, 16);
  RACETRACK_FIELD_AT(Params, spitch, 24);
  RACETRACK_FIELD_AT(Params, width, 32);
  RACETRACK_FIELD_AT(Params, height, 40);
  RACETRACK_FIELD_AT(Params, kind, 48);
  if constexpr (requires(const Params& q) { q.stream; }) RACETRACK_FIELD_AT(Params, stream, 56);
  event.value = static_cast<uint32_t>(p.kind);
  if (!write_pitched({u64(p.dst), p.dpitch, 0}, {u64(p.src), p.spitch, 0}, p.width, p.height, 1, event,
                     payload))
    return false;
  return read_stream(p, event);
}

// cudaMemcpy3DParms: a linear side's first byte is ptr + z * pitch * ysize
// + y * pitch + x, and its slices are pitch * ysize apart (cudaPitchedPtr).
Side runtime_side(cudaArray_const_t array, const cudaPitchedPtr& ptr, const cudaPos& pos) {
  if (array != nullptr) return array_side(u64(array), pos.x, pos.y, pos.z);
  const uint64_t slice = uint64_t{ptr.pitch} * ptr.ysize;
  return {u64(ptr.ptr) + pos.z * slice + pos.y * ptr.pitch + pos.x, ptr.pitch, slice};
}

RACETRACK_FIELD_AT(cudaMemcpy3DParms, srcArray, 0);
RACETRACK_FIELD_AT(cudaMemcpy3DParms, srcPos, 8);
RACETRACK_FIELD_AT(cudaMemcpy3DParms, srcPtr, 32);
RACETRACK_FIELD_AT(cudaMemcpy3DParms, dstArray, 64);
RACETRACK_FIELD_AT(cudaMemcpy3DParms, dstPos, 72);
RACETRACK_FIELD_AT(cudaMemcpy3DParms, dstPtr, 96);
RACETRACK_FIELD_AT(cudaMemcpy3DParms, extent, 128);
RACETRACK_FIELD_AT(cudaMemcpy3DParms, kind, 152);

// cudaMemcpy3D[Async] and cudaMemcpy3DPeer[Async] (cudaMemcpy3DPeerParms:
// the same sides, device to device across devices; the copy's PTOP record
// makes it a COPY_P2P).
template <class Params>
bool read_runtime_copy_3d(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, p, 0);
  if constexpr (requires(const Params& q) { q.stream; }) RACETRACK_FIELD_AT(Params, stream, 8);
  if (p.p == nullptr) return read_stream(p, event);  // recorded, its ends unknown
  const auto& c = *p.p;
  if constexpr (requires { c.kind; }) {
    event.value = static_cast<uint32_t>(c.kind);
  } else {
    event.value = kDeviceToDevice;
  }
  // With an array taking part, the extent (and the array's position) counts
  // the array's elements; else bytes.
  const bool in_elements = c.srcArray != nullptr || c.dstArray != nullptr;
  if (!write_pitched(runtime_side(c.dstArray, c.dstPtr, c.dstPos),
                     runtime_side(c.srcArray, c.srcPtr, c.srcPos), c.extent.width, c.extent.height,
                     c.extent.depth, event, payload, in_elements))
    return false;
  return read_stream(p, event);
}

// The driver names each side by its memory type: host pointer or device
// (unified) address. The direction follows the types; unified memory
// leaves it to the addresses.
uint64_t driver_address(CUmemorytype type, const void* host, CUdeviceptr device) {
  return type == CU_MEMORYTYPE_HOST ? u64(host) : device;
}

// A CUDA_MEMCPY2D / 3D side: slices are pitch * height apart, where height
// is the side's srcHeight / dstHeight (may be 0 when Depth == 1); an array
// side is its handle and position (x in bytes).
Side driver_side_3d(CUmemorytype type, const void* host, CUdeviceptr device, CUarray array, size_t x,
                    size_t y, size_t z, size_t pitch, size_t height) {
  if (type == CU_MEMORYTYPE_ARRAY) return array_side(u64(array), x, y, z);
  const uint64_t slice = uint64_t{pitch} * height;
  return {driver_address(type, host, device) + z * slice + y * pitch + x, pitch, slice};
}

uint32_t driver_direction(CUmemorytype dst, CUmemorytype src) {
  if (dst == CU_MEMORYTYPE_UNIFIED || src == CU_MEMORYTYPE_UNIFIED) return kCopyDefault;
  const bool dst_host = dst == CU_MEMORYTYPE_HOST, src_host = src == CU_MEMORYTYPE_HOST;
  return dst_host ? (src_host ? kHostToHost : kDeviceToHost) : (src_host ? kHostToDevice : kDeviceToDevice);
}

RACETRACK_FIELD_AT(CUDA_MEMCPY2D, srcXInBytes, 0);
RACETRACK_FIELD_AT(CUDA_MEMCPY2D, srcY, 8);
RACETRACK_FIELD_AT(CUDA_MEMCPY2D, srcMemoryType, 16);
RACETRACK_FIELD_AT(CUDA_MEMCPY2D, srcHost, 24);
RACETRACK_FIELD_AT(CUDA_MEMCPY2D, srcDevice, 32);
RACETRACK_FIELD_AT(CUDA_MEMCPY2D, srcArray, 40);
RACETRACK_FIELD_AT(CUDA_MEMCPY2D, srcPitch, 48);
RACETRACK_FIELD_AT(CUDA_MEMCPY2D, dstXInBytes, 56);
RACETRACK_FIELD_AT(CUDA_MEMCPY2D, dstMemoryType, 72);
RACETRACK_FIELD_AT(CUDA_MEMCPY2D, dstHost, 80);
RACETRACK_FIELD_AT(CUDA_MEMCPY2D, dstDevice, 88);
RACETRACK_FIELD_AT(CUDA_MEMCPY2D, dstArray, 96);
RACETRACK_FIELD_AT(CUDA_MEMCPY2D, dstPitch, 104);
RACETRACK_FIELD_AT(CUDA_MEMCPY2D, WidthInBytes, 112);
RACETRACK_FIELD_AT(CUDA_MEMCPY2D, Height, 120);

template <class Params>
bool read_driver_copy_2d(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, pCopy, 0);
  if constexpr (requires(const Params& q) { q.hStream; }) RACETRACK_FIELD_AT(Params, hStream, 8);
  if (p.pCopy == nullptr) return read_stream(p, event);  // recorded, its ends unknown
  const CUDA_MEMCPY2D& c = *p.pCopy;
  const Side dst = driver_side_3d(c.dstMemoryType, c.dstHost, c.dstDevice, c.dstArray, c.dstXInBytes, c.dstY,
                                  0, c.dstPitch, 0);
  const Side src = driver_side_3d(c.srcMemoryType, c.srcHost, c.srcDevice, c.srcArray, c.srcXInBytes, c.srcY,
                                  0, c.srcPitch, 0);
  event.value = driver_direction(c.dstMemoryType, c.srcMemoryType);
  if (!write_pitched(dst, src, c.WidthInBytes, c.Height, 1, event, payload)) return false;
  return read_stream(p, event);
}

RACETRACK_FIELD_AT(CUDA_MEMCPY3D, srcXInBytes, 0);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, srcZ, 16);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, srcMemoryType, 32);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, srcHost, 40);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, srcDevice, 48);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, srcArray, 56);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, srcPitch, 72);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, srcHeight, 80);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, dstXInBytes, 88);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, dstMemoryType, 120);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, dstHost, 128);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, dstDevice, 136);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, dstArray, 144);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, dstPitch, 160);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, dstHeight, 168);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, WidthInBytes, 176);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D, Depth, 192);

// cuMemcpy3D[Async]_v2 and cuMemcpy3DPeer[Async] (CUDA_MEMCPY3D_PEER: the
// same sides, each with its context).
template <class Params>
bool read_driver_copy_3d(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, pCopy, 0);
  if constexpr (requires(const Params& q) { q.hStream; }) RACETRACK_FIELD_AT(Params, hStream, 8);
  if (p.pCopy == nullptr) return read_stream(p, event);  // recorded, its ends unknown
  const auto& c = *p.pCopy;
  Side dst = driver_side_3d(c.dstMemoryType, c.dstHost, c.dstDevice, c.dstArray, c.dstXInBytes, c.dstY,
                            c.dstZ, c.dstPitch, c.dstHeight);
  Side src = driver_side_3d(c.srcMemoryType, c.srcHost, c.srcDevice, c.srcArray, c.srcXInBytes, c.srcY,
                            c.srcZ, c.srcPitch, c.srcHeight);
  if (c.Depth <= 1) dst.slice_pitch = src.slice_pitch = 0;  // the heights may be 0: one slice
  event.value = driver_direction(c.dstMemoryType, c.srcMemoryType);
  if (!write_pitched(dst, src, c.WidthInBytes, c.Height, c.Depth == 0 ? 1 : c.Depth, event, payload))
    return false;
  return read_stream(p, event);
}

RACETRACK_FIELD_AT(cudaMemcpy3DPeerParms, srcArray, 0);
RACETRACK_FIELD_AT(cudaMemcpy3DPeerParms, srcPos, 8);
RACETRACK_FIELD_AT(cudaMemcpy3DPeerParms, srcPtr, 32);
RACETRACK_FIELD_AT(cudaMemcpy3DPeerParms, dstArray, 72);
RACETRACK_FIELD_AT(cudaMemcpy3DPeerParms, dstPos, 80);
RACETRACK_FIELD_AT(cudaMemcpy3DPeerParms, dstPtr, 104);
RACETRACK_FIELD_AT(cudaMemcpy3DPeerParms, extent, 144);

RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, srcXInBytes, 0);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, srcZ, 16);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, srcMemoryType, 32);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, srcDevice, 48);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, srcArray, 56);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, srcPitch, 72);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, srcHeight, 80);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, dstXInBytes, 88);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, dstMemoryType, 120);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, dstDevice, 136);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, dstArray, 144);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, dstPitch, 160);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, dstHeight, 168);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, WidthInBytes, 176);
RACETRACK_FIELD_AT(CUDA_MEMCPY3D_PEER, Depth, 192);

constexpr CallSpec kPitchedCopyCalls[] = {
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020, kMemcpy, 0,
       in<read_runtime_copy_2d<cudaMemcpy2D_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000, kMemcpy, kPts,
       in<read_runtime_copy_2d<cudaMemcpy2D_ptds_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020, kMemcpy, kAsync,
       in<read_runtime_copy_2d<cudaMemcpy2DAsync_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000, kMemcpy, kAsync | kPts,
       in<read_runtime_copy_2d<cudaMemcpy2DAsync_ptsz_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020, kMemcpy, 0,
       in<read_runtime_copy_3d<cudaMemcpy3D_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_ptds_v7000, kMemcpy, kPts,
       in<read_runtime_copy_3d<cudaMemcpy3D_ptds_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_v3020, kMemcpy, kAsync,
       in<read_runtime_copy_3d<cudaMemcpy3DAsync_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_ptsz_v7000, kMemcpy, kAsync | kPts,
       in<read_runtime_copy_3d<cudaMemcpy3DAsync_ptsz_v7000_params>>),

    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2, kMemcpy, 0, in<read_driver_copy_2d<cuMemcpy2D_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2_ptds, kMemcpy, kPts,
        in<read_driver_copy_2d<cuMemcpy2D_v2_ptds_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2, kMemcpy, 0,
        in<read_driver_copy_2d<cuMemcpy2DUnaligned_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2_ptds, kMemcpy, kPts,
        in<read_driver_copy_2d<cuMemcpy2DUnaligned_v2_ptds_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2, kMemcpy, kAsync,
        in<read_driver_copy_2d<cuMemcpy2DAsync_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2_ptsz, kMemcpy, kAsync | kPts,
        in<read_driver_copy_2d<cuMemcpy2DAsync_v2_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2, kMemcpy, 0, in<read_driver_copy_3d<cuMemcpy3D_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2_ptds, kMemcpy, kPts,
        in<read_driver_copy_3d<cuMemcpy3D_v2_ptds_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2, kMemcpy, kAsync,
        in<read_driver_copy_3d<cuMemcpy3DAsync_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2_ptsz, kMemcpy, kAsync | kPts,
        in<read_driver_copy_3d<cuMemcpy3DAsync_v2_ptsz_params>>),

    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeer_v4000, kMemcpy, 0,
       in<read_runtime_copy_3d<cudaMemcpy3DPeer_v4000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeer_ptds_v7000, kMemcpy, kPts,
       in<read_runtime_copy_3d<cudaMemcpy3DPeer_ptds_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeerAsync_v4000, kMemcpy, kAsync,
       in<read_runtime_copy_3d<cudaMemcpy3DPeerAsync_v4000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeerAsync_ptsz_v7000, kMemcpy, kAsync | kPts,
       in<read_runtime_copy_3d<cudaMemcpy3DPeerAsync_ptsz_v7000_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeer, kMemcpy, 0,
        in<read_driver_copy_3d<cuMemcpy3DPeer_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeer_ptds, kMemcpy, kPts,
        in<read_driver_copy_3d<cuMemcpy3DPeer_ptds_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeerAsync, kMemcpy, kAsync,
        in<read_driver_copy_3d<cuMemcpy3DPeerAsync_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeerAsync_ptsz, kMemcpy, kAsync | kPts,
        in<read_driver_copy_3d<cuMemcpy3DPeerAsync_ptsz_params>>),
};
static_assert(!has_duplicates(kPitchedCopyCalls));

}  // namespace

std::span<const CallSpec> pitched_copy_calls() {
  return kPitchedCopyCalls;
}

}  // namespace racetrack::capture::decoder
