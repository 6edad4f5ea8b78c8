// Pitched memsets: cudaMemset2D[Async], cudaMemset3D[Async] and the
// driver's cuMemsetD2D8/16/32[Async] (width in elements of 1, 2 or 4
// bytes). The shape goes to the payload (copy_shape_words.h); `bytes` is
// width (in bytes) * height * depth.
#include "callback_decoder_family.h"
#include "copy_shape_words.h"

namespace racetrack::capture::decoder {
namespace {

using enum ApiKind;

bool write_pitched(uint64_t first, uint64_t pitch, uint64_t slice_pitch, uint64_t width, uint64_t height,
                   uint64_t depth, ApiEvent& event, Payload& payload) {
  const uint64_t words[kPitchedWords] = {width, height, depth, pitch, 0, slice_pitch, 0};
  if (!append_words(words, kPitchedWords, event, payload)) return false;
  event.flags |= kFlagPitched;
  event.dst = first;
  event.bytes = width * height * depth;
  return true;
}

template <class Params>
bool read_runtime_memset_2d(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, devPtr, 0);
  RACETRACK_FIELD_AT(Params, pitch, 8);
  RACETRACK_FIELD_AT(Params, value, 16);
  RACETRACK_FIELD_AT(Params, width, 24);
  RACETRACK_FIELD_AT(Params, height, 32);
  if constexpr (requires(const Params& q) { q.stream; }) RACETRACK_FIELD_AT(Params, stream, 40);
  event.value = static_cast<uint32_t>(p.value);
  event.element_size = 1;
  if (!write_pitched(u64(p.devPtr), p.pitch, 0, p.width, p.height, 1, event, payload)) return false;
  return read_stream(p, event);
}

// cudaMemset3D: the extent's width is in bytes; slices are pitch * ysize
// apart (cudaPitchedPtr).
template <class Params>
bool read_runtime_memset_3d(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, pitchedDevPtr, 0);
  RACETRACK_FIELD_AT(Params, value, 32);
  RACETRACK_FIELD_AT(Params, extent, 40);
  if constexpr (requires(const Params& q) { q.stream; }) RACETRACK_FIELD_AT(Params, stream, 64);
  const cudaPitchedPtr& ptr = p.pitchedDevPtr;
  event.value = static_cast<uint32_t>(p.value);
  event.element_size = 1;
  const uint64_t slice = p.extent.depth > 1 ? uint64_t{ptr.pitch} * ptr.ysize : 0;
  if (!write_pitched(u64(ptr.ptr), ptr.pitch, slice, p.extent.width, p.extent.height,
                     p.extent.depth == 0 ? 1 : p.extent.depth, event, payload))
    return false;
  return read_stream(p, event);
}

// cuMemsetD2D8/16/32: Width elements of 1, 2 or 4 bytes (uc, us or ui).
template <class Params>
bool read_driver_memset_2d(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, dstDevice, 0);
  RACETRACK_FIELD_AT(Params, dstPitch, 8);
  RACETRACK_FIELD_AT(Params, Width, 24);
  RACETRACK_FIELD_AT(Params, Height, 32);
  if constexpr (requires(const Params& q) { q.hStream; }) RACETRACK_FIELD_AT(Params, hStream, 40);
  if constexpr (requires(const Params& q) { q.uc; }) {
    RACETRACK_FIELD_AT(Params, uc, 16);
    event.value = p.uc;
    event.element_size = 1;
  } else if constexpr (requires(const Params& q) { q.us; }) {
    RACETRACK_FIELD_AT(Params, us, 16);
    event.value = p.us;
    event.element_size = 2;
  } else {
    RACETRACK_FIELD_AT(Params, ui, 16);
    event.value = p.ui;
    event.element_size = 4;
  }
  if (!write_pitched(p.dstDevice, p.dstPitch, 0, uint64_t{p.Width} * event.element_size, p.Height, 1, event,
                     payload))
    return false;
  return read_stream(p, event);
}

constexpr CallSpec kPitchedMemsetCalls[] = {
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_v3020, kMemset, 0,
       in<read_runtime_memset_2d<cudaMemset2D_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_ptds_v7000, kMemset, kPts,
       in<read_runtime_memset_2d<cudaMemset2D_ptds_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_v3020, kMemset, kAsync,
       in<read_runtime_memset_2d<cudaMemset2DAsync_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_ptsz_v7000, kMemset, kAsync | kPts,
       in<read_runtime_memset_2d<cudaMemset2DAsync_ptsz_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemset3D_v3020, kMemset, 0,
       in<read_runtime_memset_3d<cudaMemset3D_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemset3D_ptds_v7000, kMemset, kPts,
       in<read_runtime_memset_3d<cudaMemset3D_ptds_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemset3DAsync_v3020, kMemset, kAsync,
       in<read_runtime_memset_3d<cudaMemset3DAsync_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemset3DAsync_ptsz_v7000, kMemset, kAsync | kPts,
       in<read_runtime_memset_3d<cudaMemset3DAsync_ptsz_v7000_params>>),

    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2, kMemset, 0,
        in<read_driver_memset_2d<cuMemsetD2D8_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2_ptds, kMemset, kPts,
        in<read_driver_memset_2d<cuMemsetD2D8_v2_ptds_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2, kMemset, 0,
        in<read_driver_memset_2d<cuMemsetD2D16_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2_ptds, kMemset, kPts,
        in<read_driver_memset_2d<cuMemsetD2D16_v2_ptds_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2, kMemset, 0,
        in<read_driver_memset_2d<cuMemsetD2D32_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2_ptds, kMemset, kPts,
        in<read_driver_memset_2d<cuMemsetD2D32_v2_ptds_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async, kMemset, kAsync,
        in<read_driver_memset_2d<cuMemsetD2D8Async_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async_ptsz, kMemset, kAsync | kPts,
        in<read_driver_memset_2d<cuMemsetD2D8Async_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async, kMemset, kAsync,
        in<read_driver_memset_2d<cuMemsetD2D16Async_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async_ptsz, kMemset, kAsync | kPts,
        in<read_driver_memset_2d<cuMemsetD2D16Async_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async, kMemset, kAsync,
        in<read_driver_memset_2d<cuMemsetD2D32Async_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async_ptsz, kMemset, kAsync | kPts,
        in<read_driver_memset_2d<cuMemsetD2D32Async_ptsz_params>>),
};
static_assert(!has_duplicates(kPitchedMemsetCalls));

}  // namespace

std::span<const CallSpec> pitched_memset_calls() {
  return kPitchedMemsetCalls;
}

}  // namespace racetrack::capture::decoder
