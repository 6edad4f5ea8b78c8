// Host functions enqueued on a stream: cudaLaunchHostFunc, cuLaunchHostFunc
// and cudaStreamAddCallback. Each becomes a HostFunc op on its stream,
// named by the function's address (handle); what the function touches is
// not known from the call (annotate it, docs/capture.md).
#include "callback_decoder_family.h"

namespace racetrack::capture::decoder {
namespace {

using enum ApiKind;

template <class Params>
bool read_host_func(const Params& p, ApiEvent& event) {
  if constexpr (requires(const Params& q) { q.callback; }) {
    RACETRACK_FIELD_AT(Params, stream, 0);
    RACETRACK_FIELD_AT(Params, callback, 8);
    event.handle = reinterpret_cast<uintptr_t>(p.callback);
  } else if constexpr (requires(const Params& q) { q.hStream; }) {
    RACETRACK_FIELD_AT(Params, hStream, 0);
    RACETRACK_FIELD_AT(Params, fn, 8);
    event.handle = reinterpret_cast<uintptr_t>(p.fn);
  } else {
    RACETRACK_FIELD_AT(Params, stream, 0);
    RACETRACK_FIELD_AT(Params, fn, 8);
    event.handle = reinterpret_cast<uintptr_t>(p.fn);
  }
  return read_stream(p, event);
}

constexpr CallSpec kHostFuncCalls[] = {
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000, kHostFunc, 0,
       in<read_host_func<cudaLaunchHostFunc_v10000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_ptsz_v10000, kHostFunc, kPts,
       in<read_host_func<cudaLaunchHostFunc_ptsz_v10000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamAddCallback_v5000, kHostFunc, 0,
       in<read_host_func<cudaStreamAddCallback_v5000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamAddCallback_ptsz_v7000, kHostFunc, kPts,
       in<read_host_func<cudaStreamAddCallback_ptsz_v7000_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, kHostFunc, 0, in<read_host_func<cuLaunchHostFunc_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz, kHostFunc, kPts,
        in<read_host_func<cuLaunchHostFunc_ptsz_params>>),
};
static_assert(!has_duplicates(kHostFuncCalls));

}  // namespace

std::span<const CallSpec> host_func_calls() {
  return kHostFuncCalls;
}

}  // namespace racetrack::capture::decoder
