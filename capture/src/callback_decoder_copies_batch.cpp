// Batched copies: cudaMemcpyBatchAsync (CUDA 12.8+; vLLM's KV offload) and
// cuMemcpyBatchAsync[_v2]: `count` copies on one stream in one call. The
// (dst, src, bytes) of every copy go to the payload (copy_shape_words.h);
// the assembler writes one Memcpy op per copy, all with the call's
// correlation id (docs/capture.md). A batch too large for the thread log's
// payload room is not recorded, rather than recorded in part. The 3D batch
// (cudaMemcpy3DBatchAsync, cuMemcpy3DBatchAsync[_v2]) carries each copy's
// sides and shape the same way, counted in elements (an array's, else
// bytes), for the assembler to place.
#include "callback_decoder_family.h"
#include "copy_sides.h"

namespace racetrack::capture::decoder {
namespace {

using enum ApiKind;

template <class Params, class Dst, class Src>
bool read_batch(const Params& p, const Dst* dsts, const Src* srcs, ApiEvent& event, Payload& payload) {
  // Without copies the call is still recorded (an op on its stream).
  if (p.count == 0 || dsts == nullptr || srcs == nullptr || p.sizes == nullptr) return read_stream(p, event);
  if (p.count > payload.capacity / kBatchWordsPerCopy) return false;
  uint64_t* out = reserve_words(static_cast<uint32_t>(p.count) * kBatchWordsPerCopy, event, payload);
  if (out == nullptr) return false;
  for (size_t i = 0; i < p.count; ++i) {
    out[i * kBatchWordsPerCopy + 0] = u64(dsts[i]);
    out[i * kBatchWordsPerCopy + 1] = u64(srcs[i]);
    out[i * kBatchWordsPerCopy + 2] = p.sizes[i];
  }
  event.flags |= kFlagBatch;
  event.dst = out[0];
  event.src = out[1];
  event.bytes = out[2];
  event.value = kCopyDefault;
  return read_stream(p, event);
}

template <class Params>
bool read_runtime_batch(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, dsts, 0);
  RACETRACK_FIELD_AT(Params, srcs, 8);
  RACETRACK_FIELD_AT(Params, sizes, 16);
  RACETRACK_FIELD_AT(Params, count, 24);
  RACETRACK_FIELD_AT(Params, stream, 56);
  return read_batch(p, p.dsts, p.srcs, event, payload);
}

template <class Params>
bool read_driver_batch(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, dsts, 0);
  RACETRACK_FIELD_AT(Params, srcs, 8);
  RACETRACK_FIELD_AT(Params, sizes, 16);
  RACETRACK_FIELD_AT(Params, count, 24);
  // cuMemcpyBatchAsync (12.8) has a failIdx before the stream; _v2 has not.
  if constexpr (requires(const Params& q) { q.failIdx; }) {
    RACETRACK_FIELD_AT(Params, hStream, 64);
  } else {
    RACETRACK_FIELD_AT(Params, hStream, 56);
  }
  return read_batch(p, p.dsts, p.srcs, event, payload);
}

// A 3D batch operand: a pointer with its row length and layer height in
// elements (0: packed to the copy's extent), or an array and offset.
template <class Operand>
Side batch_side(const Operand& o, uint64_t width, uint64_t height) {
  static_assert(offsetof(Operand, op) == 8 && sizeof(Operand) == 40,
                "3D batch operand moved (CUDA header change?)");
  if (o.type == 2)
    return array_side(u64(o.op.array.array), o.op.array.offset.x, o.op.array.offset.y, o.op.array.offset.z);
  const uint64_t row = o.op.ptr.rowLength ? o.op.ptr.rowLength : width;
  const uint64_t layer = o.op.ptr.layerHeight ? o.op.ptr.layerHeight : height;
  return {u64(o.op.ptr.ptr), row, row * layer};
}

template <class Params, class Op>
bool read_batch_3d(const Params& p, const Op* ops, ApiEvent& event, Payload& payload) {
  static_assert(offsetof(Op, dst) == 40 && offsetof(Op, extent) == 80 && sizeof(Op) == 112,
                "3D batch op moved (CUDA header change?)");
  if (p.numOps == 0 || ops == nullptr) return read_stream(p, event);
  if (p.numOps > payload.capacity / kBatch3DWordsPerCopy) return false;
  uint64_t* out = reserve_words(static_cast<uint32_t>(p.numOps) * kBatch3DWordsPerCopy, event, payload);
  if (out == nullptr) return false;
  for (size_t i = 0; i < p.numOps; ++i, out += kBatch3DWordsPerCopy) {
    const Op& op = ops[i];
    const uint64_t width = op.extent.width, height = op.extent.height, depth = op.extent.depth;
    const Side dst = batch_side(op.dst, width, height), src = batch_side(op.src, width, height);
    out[0] = dst.first;
    out[1] = src.first;
    shape_words(dst, src, width, height, depth, kInElements | kPitchesInElements, out + 2);
  }
  event.flags |= kFlagBatch3D;
  event.value = kCopyDefault;
  return read_stream(p, event);
}

template <class Params>
bool read_runtime_batch_3d(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, numOps, 0);
  RACETRACK_FIELD_AT(Params, opList, 8);
  RACETRACK_FIELD_AT(Params, stream, 24);
  return read_batch_3d(p, p.opList, event, payload);
}

template <class Params>
bool read_driver_batch_3d(const Params& p, DriverQueries&, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, numOps, 0);
  RACETRACK_FIELD_AT(Params, opList, 8);
  // cuMemcpy3DBatchAsync (12.8) has a failIdx before the flags; _v2 has not.
  if constexpr (requires(const Params& q) { q.failIdx; }) {
    RACETRACK_FIELD_AT(Params, hStream, 32);
  } else {
    RACETRACK_FIELD_AT(Params, hStream, 24);
  }
  return read_batch_3d(p, p.opList, event, payload);
}

constexpr CallSpec kBatchCopyCalls[] = {
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v13000, kMemcpy, kAsync,
       in<read_runtime_batch<cudaMemcpyBatchAsync_v13000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_ptsz_v13000, kMemcpy, kAsync | kPts,
       in<read_runtime_batch<cudaMemcpyBatchAsync_ptsz_v13000_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync, kMemcpy, kAsync,
        in<read_driver_batch<cuMemcpyBatchAsync_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_ptsz, kMemcpy, kAsync | kPts,
        in<read_driver_batch<cuMemcpyBatchAsync_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2, kMemcpy, kAsync,
        in<read_driver_batch<cuMemcpyBatchAsync_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2_ptsz, kMemcpy, kAsync | kPts,
        in<read_driver_batch<cuMemcpyBatchAsync_v2_ptsz_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DBatchAsync_v13000, kMemcpy, kAsync,
       in<read_runtime_batch_3d<cudaMemcpy3DBatchAsync_v13000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DBatchAsync_ptsz_v13000, kMemcpy, kAsync | kPts,
       in<read_runtime_batch_3d<cudaMemcpy3DBatchAsync_ptsz_v13000_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync, kMemcpy, kAsync,
        in<read_driver_batch_3d<cuMemcpy3DBatchAsync_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync_ptsz, kMemcpy, kAsync | kPts,
        in<read_driver_batch_3d<cuMemcpy3DBatchAsync_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync_v2, kMemcpy, kAsync,
        in<read_driver_batch_3d<cuMemcpy3DBatchAsync_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DBatchAsync_v2_ptsz, kMemcpy, kAsync | kPts,
        in<read_driver_batch_3d<cuMemcpy3DBatchAsync_v2_ptsz_params>>),
};
static_assert(!has_duplicates(kBatchCopyCalls));

}  // namespace

std::span<const CallSpec> batch_copy_calls() {
  return kBatchCopyCalls;
}

}  // namespace racetrack::capture::decoder
