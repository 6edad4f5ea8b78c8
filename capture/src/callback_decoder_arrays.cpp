// CUDA arrays: their creation and destruction (cudaMallocArray,
// cudaMalloc3DArray, cudaFreeArray, cuArray[3D]Create_v2, cuArrayDestroy)
// and the copies named by array offsets (cudaMemcpy[2D]ToArray[Async],
// [2D]FromArray[Async], [2D]ArrayToArray, cuMemcpyAtoD / DtoA / AtoH / HtoA /
// AtoA[_v2][Async]). An array has no address of its own: the event keeps
// its handle and the position, and the assembler places each array in a
// range of its own (docs/capture.md "CUDA arrays"). cudaMemcpy3D and the
// driver's 2D / 3D copies with an array side are in _copies_2d.cpp.
#include "callback_decoder_family.h"
#include "copy_sides.h"

namespace racetrack::capture::decoder {
namespace {

using enum ApiKind;

bool write_shape(uint64_t width, uint64_t height, uint64_t depth, uint64_t element_size, ApiEvent& event,
                 Payload& payload) {
  const uint64_t words[kArrayShapeWords] = {width, height, depth, element_size};
  return append_words(words, kArrayShapeWords, event, payload);
}

// Bytes per element of a runtime channel format; 0 for formats racetrack
// does not size (NV12, block-compressed: their channels do not say).
uint64_t element_size(const cudaChannelFormatDesc& desc) {
  const int bits = desc.x + desc.y + desc.z + desc.w;
  return bits > 0 && bits % 8 == 0 ? static_cast<uint64_t>(bits / 8) : 0;
}

uint64_t element_size(CUarray_format format, unsigned channels) {
  uint64_t channel = 0;
  switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8: channel = 1; break;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF: channel = 2; break;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT: channel = 4; break;
    default: return 0;
  }
  return channel * channels;
}

RACETRACK_FIELD_AT(cudaChannelFormatDesc, x, 0);
RACETRACK_FIELD_AT(cudaChannelFormatDesc, w, 12);

bool read_runtime_array(const cudaMallocArray_v3020_params& p, DriverQueries&, ApiEvent& event,
                        Payload& payload) {
  RACETRACK_FIELD_AT(cudaMallocArray_v3020_params, desc, 8);
  RACETRACK_FIELD_AT(cudaMallocArray_v3020_params, width, 16);
  RACETRACK_FIELD_AT(cudaMallocArray_v3020_params, height, 24);
  if (p.desc == nullptr) return true;  // recorded, its size unknown
  return write_shape(p.width, p.height, 0, element_size(*p.desc), event, payload);
}

bool read_runtime_array_3d(const cudaMalloc3DArray_v3020_params& p, DriverQueries&, ApiEvent& event,
                           Payload& payload) {
  RACETRACK_FIELD_AT(cudaMalloc3DArray_v3020_params, desc, 8);
  RACETRACK_FIELD_AT(cudaMalloc3DArray_v3020_params, extent, 16);
  if (p.desc == nullptr) return true;
  // Layered and cubemap arrays count their layers (6 faces) in the depth.
  return write_shape(p.extent.width, p.extent.height, p.extent.depth, element_size(*p.desc), event, payload);
}

RACETRACK_FIELD_AT(CUDA_ARRAY_DESCRIPTOR, Height, 8);
RACETRACK_FIELD_AT(CUDA_ARRAY_DESCRIPTOR, Format, 16);
RACETRACK_FIELD_AT(CUDA_ARRAY_DESCRIPTOR, NumChannels, 20);
RACETRACK_FIELD_AT(CUDA_ARRAY3D_DESCRIPTOR, Depth, 16);
RACETRACK_FIELD_AT(CUDA_ARRAY3D_DESCRIPTOR, Format, 24);
RACETRACK_FIELD_AT(CUDA_ARRAY3D_DESCRIPTOR, NumChannels, 28);

template <class Params>
bool read_driver_array(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, pAllocateArray, 8);
  if (p.pAllocateArray == nullptr) return true;
  const auto& d = *p.pAllocateArray;
  uint64_t depth = 0;
  if constexpr (requires { d.Depth; }) depth = d.Depth;
  return write_shape(d.Width, d.Height, depth, element_size(d.Format, d.NumChannels), event, payload);
}

template <class Params>
void read_created_array(const Params& p, ApiEvent& event) {
  if constexpr (requires(const Params& q) { q.array; }) {
    RACETRACK_FIELD_AT(Params, array, 0);
    event.handle = out_value(p.array);
  } else {
    RACETRACK_FIELD_AT(Params, pHandle, 0);
    event.handle = out_value(p.pHandle);
  }
}

bool read_runtime_free(const cudaFreeArray_v3020_params& p, ApiEvent& event) {
  event.handle = u64(p.array);
  return true;
}

bool read_driver_free(const cuArrayDestroy_params& p, ApiEvent& event) {
  event.handle = u64(p.hArray);
  return true;
}

// cudaMemcpyToArray / FromArray / ArrayToArray: `count` bytes from an
// array position (column in bytes, row), running on across rows.
template <class Params>
bool read_to_array(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, dst, 0);
  RACETRACK_FIELD_AT(Params, wOffset, 8);
  RACETRACK_FIELD_AT(Params, hOffset, 16);
  RACETRACK_FIELD_AT(Params, src, 24);
  RACETRACK_FIELD_AT(Params, count, 32);
  RACETRACK_FIELD_AT(Params, kind, 40);
  event.value = static_cast<uint32_t>(p.kind);
  if (!write_contiguous(array_side(u64(p.dst), p.wOffset, p.hOffset), {u64(p.src)}, p.count, event, payload))
    return false;
  return read_stream(p, event);
}

template <class Params>
bool read_from_array(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, dst, 0);
  RACETRACK_FIELD_AT(Params, src, 8);
  RACETRACK_FIELD_AT(Params, wOffset, 16);
  RACETRACK_FIELD_AT(Params, hOffset, 24);
  RACETRACK_FIELD_AT(Params, count, 32);
  RACETRACK_FIELD_AT(Params, kind, 40);
  event.value = static_cast<uint32_t>(p.kind);
  if (!write_contiguous({u64(p.dst)}, array_side(u64(p.src), p.wOffset, p.hOffset), p.count, event, payload))
    return false;
  return read_stream(p, event);
}

template <class Params>
bool read_array_to_array(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, dst, 0);
  RACETRACK_FIELD_AT(Params, wOffsetDst, 8);
  RACETRACK_FIELD_AT(Params, hOffsetDst, 16);
  RACETRACK_FIELD_AT(Params, src, 24);
  RACETRACK_FIELD_AT(Params, wOffsetSrc, 32);
  RACETRACK_FIELD_AT(Params, hOffsetSrc, 40);
  RACETRACK_FIELD_AT(Params, count, 48);
  RACETRACK_FIELD_AT(Params, kind, 56);
  event.value = static_cast<uint32_t>(p.kind);
  return write_contiguous(array_side(u64(p.dst), p.wOffsetDst, p.hOffsetDst),
                          array_side(u64(p.src), p.wOffsetSrc, p.hOffsetSrc), p.count, event, payload);
}

// cudaMemcpy2DToArray / 2DFromArray / 2DArrayToArray: `height` rows of
// `width` bytes; the array side's rows are the array's.
template <class Params>
bool read_2d_to_array(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, dst, 0);
  RACETRACK_FIELD_AT(Params, wOffset, 8);
  RACETRACK_FIELD_AT(Params, hOffset, 16);
  RACETRACK_FIELD_AT(Params, src, 24);
  RACETRACK_FIELD_AT(Params, spitch, 32);
  RACETRACK_FIELD_AT(Params, width, 40);
  RACETRACK_FIELD_AT(Params, height, 48);
  RACETRACK_FIELD_AT(Params, kind, 56);
  event.value = static_cast<uint32_t>(p.kind);
  if (!write_pitched(array_side(u64(p.dst), p.wOffset, p.hOffset), {u64(p.src), p.spitch}, p.width, p.height,
                     1, event, payload))
    return false;
  return read_stream(p, event);
}

template <class Params>
bool read_2d_from_array(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, dst, 0);
  RACETRACK_FIELD_AT(Params, dpitch, 8);
  RACETRACK_FIELD_AT(Params, src, 16);
  RACETRACK_FIELD_AT(Params, wOffset, 24);
  RACETRACK_FIELD_AT(Params, hOffset, 32);
  RACETRACK_FIELD_AT(Params, width, 40);
  RACETRACK_FIELD_AT(Params, height, 48);
  RACETRACK_FIELD_AT(Params, kind, 56);
  event.value = static_cast<uint32_t>(p.kind);
  if (!write_pitched({u64(p.dst), p.dpitch}, array_side(u64(p.src), p.wOffset, p.hOffset), p.width, p.height,
                     1, event, payload))
    return false;
  return read_stream(p, event);
}

template <class Params>
bool read_2d_array_to_array(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, dst, 0);
  RACETRACK_FIELD_AT(Params, wOffsetDst, 8);
  RACETRACK_FIELD_AT(Params, hOffsetDst, 16);
  RACETRACK_FIELD_AT(Params, src, 24);
  RACETRACK_FIELD_AT(Params, wOffsetSrc, 32);
  RACETRACK_FIELD_AT(Params, hOffsetSrc, 40);
  RACETRACK_FIELD_AT(Params, width, 48);
  RACETRACK_FIELD_AT(Params, height, 56);
  RACETRACK_FIELD_AT(Params, kind, 64);
  event.value = static_cast<uint32_t>(p.kind);
  return write_pitched(array_side(u64(p.dst), p.wOffsetDst, p.hOffsetDst),
                       array_side(u64(p.src), p.wOffsetSrc, p.hOffsetSrc), p.width, p.height, 1, event,
                       payload);
}

// The driver's array copies name a byte offset into the array.
template <class Params>
bool read_driver_array_copy(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  Side dst, src;
  if constexpr (requires(const Params& q) { q.dstArray; }) {
    RACETRACK_FIELD_AT(Params, dstArray, 0);
    RACETRACK_FIELD_AT(Params, dstOffset, 8);
    dst = array_side(u64(p.dstArray), p.dstOffset);
  } else if constexpr (requires(const Params& q) { q.dstHost; }) {
    RACETRACK_FIELD_AT(Params, dstHost, 0);
    dst = {u64(p.dstHost)};
  } else {
    RACETRACK_FIELD_AT(Params, dstDevice, 0);
    dst = {u64(p.dstDevice)};
  }
  if constexpr (requires(const Params& q) { q.srcArray; }) {
    src = array_side(u64(p.srcArray), p.srcOffset);
  } else if constexpr (requires(const Params& q) { q.srcHost; }) {
    src = {u64(p.srcHost)};
  } else {
    src = {u64(p.srcDevice)};
  }
  const bool host_dst = requires(const Params& q) {
    q.dstHost;
  };
  const bool host_src = requires(const Params& q) {
    q.srcHost;
  };
  event.value = host_dst ? kDeviceToHost : host_src ? kHostToDevice : kDeviceToDevice;
  if (!write_contiguous(dst, src, p.ByteCount, event, payload)) return false;
  return read_stream(p, event);
}

RACETRACK_FIELD_AT(cuMemcpyAtoD_v2_params, srcArray, 8);
RACETRACK_FIELD_AT(cuMemcpyAtoD_v2_params, srcOffset, 16);
RACETRACK_FIELD_AT(cuMemcpyAtoD_v2_params, ByteCount, 24);
RACETRACK_FIELD_AT(cuMemcpyDtoA_v2_params, srcDevice, 16);
RACETRACK_FIELD_AT(cuMemcpyDtoA_v2_params, ByteCount, 24);
RACETRACK_FIELD_AT(cuMemcpyAtoHAsync_v2_params, hStream, 32);
RACETRACK_FIELD_AT(cuMemcpyHtoAAsync_v2_params, srcHost, 16);
RACETRACK_FIELD_AT(cuMemcpyHtoAAsync_v2_params, hStream, 32);
RACETRACK_FIELD_AT(cuMemcpyAtoA_v2_params, srcArray, 16);
RACETRACK_FIELD_AT(cuMemcpyAtoA_v2_params, srcOffset, 24);
RACETRACK_FIELD_AT(cuMemcpyAtoA_v2_params, ByteCount, 32);

#define RT_COPY(name, reader, flags) \
  rt(CUPTI_RUNTIME_TRACE_CBID_##name, kMemcpy, flags, in<reader<name##_params>>)
#define DRV_COPY(name, flags) \
  drv(CUPTI_DRIVER_TRACE_CBID_##name, kMemcpy, flags, in<read_driver_array_copy<name##_params>>)

constexpr CallSpec kArrayCalls[] = {
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMallocArray_v3020, kArrayCreate, 0, in<read_runtime_array>,
       out<read_created_array<cudaMallocArray_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc3DArray_v3020, kArrayCreate, 0, in<read_runtime_array_3d>,
       out<read_created_array<cudaMalloc3DArray_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaFreeArray_v3020, kArrayDestroy, 0, in<read_runtime_free>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuArrayCreate_v2, kArrayCreate, 0,
        in<read_driver_array<cuArrayCreate_v2_params>>, out<read_created_array<cuArrayCreate_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuArray3DCreate_v2, kArrayCreate, 0,
        in<read_driver_array<cuArray3DCreate_v2_params>>, out<read_created_array<cuArray3DCreate_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuArrayDestroy, kArrayDestroy, 0, in<read_driver_free>),

    RT_COPY(cudaMemcpyToArray_v3020, read_to_array, 0),
    RT_COPY(cudaMemcpyToArray_ptds_v7000, read_to_array, kPts),
    RT_COPY(cudaMemcpyToArrayAsync_v3020, read_to_array, kAsync),
    RT_COPY(cudaMemcpyToArrayAsync_ptsz_v7000, read_to_array, kAsync | kPts),
    RT_COPY(cudaMemcpyFromArray_v3020, read_from_array, 0),
    RT_COPY(cudaMemcpyFromArray_ptds_v7000, read_from_array, kPts),
    RT_COPY(cudaMemcpyFromArrayAsync_v3020, read_from_array, kAsync),
    RT_COPY(cudaMemcpyFromArrayAsync_ptsz_v7000, read_from_array, kAsync | kPts),
    RT_COPY(cudaMemcpyArrayToArray_v3020, read_array_to_array, 0),
    RT_COPY(cudaMemcpyArrayToArray_ptds_v7000, read_array_to_array, kPts),
    RT_COPY(cudaMemcpy2DToArray_v3020, read_2d_to_array, 0),
    RT_COPY(cudaMemcpy2DToArray_ptds_v7000, read_2d_to_array, kPts),
    RT_COPY(cudaMemcpy2DToArrayAsync_v3020, read_2d_to_array, kAsync),
    RT_COPY(cudaMemcpy2DToArrayAsync_ptsz_v7000, read_2d_to_array, kAsync | kPts),
    RT_COPY(cudaMemcpy2DFromArray_v3020, read_2d_from_array, 0),
    RT_COPY(cudaMemcpy2DFromArray_ptds_v7000, read_2d_from_array, kPts),
    RT_COPY(cudaMemcpy2DFromArrayAsync_v3020, read_2d_from_array, kAsync),
    RT_COPY(cudaMemcpy2DFromArrayAsync_ptsz_v7000, read_2d_from_array, kAsync | kPts),
    RT_COPY(cudaMemcpy2DArrayToArray_v3020, read_2d_array_to_array, 0),
    RT_COPY(cudaMemcpy2DArrayToArray_ptds_v7000, read_2d_array_to_array, kPts),

    DRV_COPY(cuMemcpyAtoD_v2, 0),
    DRV_COPY(cuMemcpyAtoD_v2_ptds, kPts),
    DRV_COPY(cuMemcpyDtoA_v2, 0),
    DRV_COPY(cuMemcpyDtoA_v2_ptds, kPts),
    DRV_COPY(cuMemcpyAtoH_v2, 0),
    DRV_COPY(cuMemcpyAtoH_v2_ptds, kPts),
    DRV_COPY(cuMemcpyAtoHAsync_v2, kAsync),
    DRV_COPY(cuMemcpyAtoHAsync_v2_ptsz, kAsync | kPts),
    DRV_COPY(cuMemcpyHtoA_v2, 0),
    DRV_COPY(cuMemcpyHtoA_v2_ptds, kPts),
    DRV_COPY(cuMemcpyHtoAAsync_v2, kAsync),
    DRV_COPY(cuMemcpyHtoAAsync_v2_ptsz, kAsync | kPts),
    DRV_COPY(cuMemcpyAtoA_v2, 0),
    DRV_COPY(cuMemcpyAtoA_v2_ptds, kPts),
};
#undef RT_COPY
#undef DRV_COPY
static_assert(!has_duplicates(kArrayCalls));

}  // namespace

std::span<const CallSpec> array_calls() {
  return kArrayCalls;
}

}  // namespace racetrack::capture::decoder
