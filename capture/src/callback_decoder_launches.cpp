// Driver kernel launches: the launch configuration and the argument words
// (§4.2). Runtime launches are left out on purpose: each nests a driver
// launch with the same correlation id, and only driver launches see every
// kernel (§3.3).
#include <algorithm>
#include <cstring>

#include "callback_decoder_family.h"

namespace racetrack::capture::decoder {
namespace {

using enum ApiKind;

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

// The grid, block, shared memory and stream of a launch: cuLaunchKernel's
// parameters and cuLaunchKernelEx's CUlaunchConfig name them alike.
template <class Launch>
void set_geometry(const Launch& l, ApiEvent& event) {
  event.grid[0] = l.gridDimX;
  event.grid[1] = l.gridDimY;
  event.grid[2] = l.gridDimZ;
  event.block[0] = l.blockDimX;
  event.block[1] = l.blockDimY;
  event.block[2] = l.blockDimZ;
  event.shared_mem = l.sharedMemBytes;
  set_stream(event, u64(l.hStream));
}

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
  set_geometry(p, event);
  void* const* extra = nullptr;
  if constexpr (requires(const Params& q) { q.extra; }) {
    RACETRACK_FIELD_AT(Params, extra, 56);
    extra = p.extra;
  }
  event.module = queries.function_module(event.handle);
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

RACETRACK_FIELD_AT(CUlaunchConfig, attrs, 40);
RACETRACK_FIELD_AT(CUlaunchConfig, numAttrs, 48);
RACETRACK_FIELD_AT(CUlaunchAttribute, id, 0);
RACETRACK_FIELD_AT(CUlaunchAttribute, value, 8);

// The most launch attributes read; a launch names each kind at most once,
// and there are fewer than 32 kinds.
constexpr unsigned kMaxLaunchAttributes = 32;

RACETRACK_FIELD_AT(CUlaunchAttributeValue, programmaticEvent.event, 0);
RACETRACK_FIELD_AT(CUlaunchAttributeValue, programmaticEvent.triggerAtBlockStart, 12);

// The launch attributes of programmatic dependent launch: stream
// serialization allowed (the kernel may overlap the previous kernel of its
// stream) and a programmatic event, recorded at the kernel's trigger. The
// last setting of an attribute wins, as for any attribute list.
void read_programmatic_attributes(const CUlaunchConfig& config, ApiEvent& event) {
  if (config.attrs == nullptr) return;
  bool allowed = false;
  for (unsigned i = 0; i < std::min(config.numAttrs, kMaxLaunchAttributes); ++i) {
    const CUlaunchAttribute& a = config.attrs[i];
    if (a.id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)
      allowed = a.value.programmaticStreamSerializationAllowed != 0;
    if (a.id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT) {
      event.event = u64(a.value.programmaticEvent.event);
      event.flags &= ~kFlagProgrammaticEventAtBlockStart;
      if (a.value.programmaticEvent.triggerAtBlockStart != 0)
        event.flags |= kFlagProgrammaticEventAtBlockStart;
    }
  }
  if (allowed) event.flags |= kFlagProgrammatic;
  if (!event.event) event.flags &= ~kFlagProgrammaticEventAtBlockStart;
}

template <class Params>
bool read_launch_ex(const Params& p, DriverQueries& queries, ApiEvent& event, Payload& payload) {
  RACETRACK_FIELD_AT(Params, config, 0);
  RACETRACK_FIELD_AT(Params, f, 8);
  RACETRACK_FIELD_AT(Params, kernelParams, 16);
  RACETRACK_FIELD_AT(Params, extra, 24);
  event.handle = u64(p.f);
  if (p.config != nullptr) {
    set_geometry(*p.config, event);
    read_programmatic_attributes(*p.config, event);
  }
  event.module = queries.function_module(event.handle);
  append_argument_words(queries.param_layout(event.handle), p.kernelParams, p.extra, event, payload);
  return true;
}

constexpr CallSpec kLaunchCalls[] = {
    drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, kLaunch, 0, in<read_launch<cuLaunchKernel_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, kLaunch, kPts,
        in<read_launch<cuLaunchKernel_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, kLaunch, 0, in<read_launch_ex<cuLaunchKernelEx_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, kLaunch, kPts,
        in<read_launch_ex<cuLaunchKernelEx_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, kLaunch, 0,
        in<read_launch<cuLaunchCooperativeKernel_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz, kLaunch, kPts,
        in<read_launch<cuLaunchCooperativeKernel_ptsz_params>>),
};
static_assert(!has_duplicates(kLaunchCalls));

}  // namespace

std::span<const CallSpec> launch_calls() {
  return kLaunchCalls;
}

}  // namespace racetrack::capture::decoder
