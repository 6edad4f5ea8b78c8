// Copies to and from module symbols: cudaMemcpyToSymbol[Async] and
// cudaMemcpyFromSymbol[Async]. The symbol is the host shadow of a
// __device__ variable; its device address needs cudaGetSymbolAddress, which
// a callback must not call. So the host (or other) side is recorded exactly
// and the symbol side as unknown (kFlagDstUnknown / kFlagSrcUnknown), with
// the shadow's address in `handle`; when CUPTI reports the driver copy the
// runtime issues inside the call, its address fills the unknown side in
// (the assembler merges the two, docs/capture.md).
#include "callback_decoder_family.h"

namespace racetrack::capture::decoder {
namespace {

using enum ApiKind;

template <class Params>
bool read_to_symbol(const Params& p, ApiEvent& event) {
  RACETRACK_FIELD_AT(Params, symbol, 0);
  RACETRACK_FIELD_AT(Params, src, 8);
  RACETRACK_FIELD_AT(Params, count, 16);
  RACETRACK_FIELD_AT(Params, kind, 32);
  if constexpr (requires(const Params& q) { q.stream; }) RACETRACK_FIELD_AT(Params, stream, 40);
  event.handle = u64(p.symbol);
  event.src = u64(p.src);
  event.bytes = p.count;
  event.value = static_cast<uint32_t>(p.kind);
  event.flags |= kFlagDstUnknown;
  return read_stream(p, event);
}

template <class Params>
bool read_from_symbol(const Params& p, ApiEvent& event) {
  RACETRACK_FIELD_AT(Params, dst, 0);
  RACETRACK_FIELD_AT(Params, symbol, 8);
  RACETRACK_FIELD_AT(Params, count, 16);
  RACETRACK_FIELD_AT(Params, kind, 32);
  if constexpr (requires(const Params& q) { q.stream; }) RACETRACK_FIELD_AT(Params, stream, 40);
  event.handle = u64(p.symbol);
  event.dst = u64(p.dst);
  event.bytes = p.count;
  event.value = static_cast<uint32_t>(p.kind);
  event.flags |= kFlagSrcUnknown;
  return read_stream(p, event);
}

constexpr CallSpec kSymbolCopyCalls[] = {
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020, kMemcpy, 0,
       in<read_to_symbol<cudaMemcpyToSymbol_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_ptds_v7000, kMemcpy, kPts,
       in<read_to_symbol<cudaMemcpyToSymbol_ptds_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_v3020, kMemcpy, kAsync,
       in<read_to_symbol<cudaMemcpyToSymbolAsync_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_ptsz_v7000, kMemcpy, kAsync | kPts,
       in<read_to_symbol<cudaMemcpyToSymbolAsync_ptsz_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020, kMemcpy, 0,
       in<read_from_symbol<cudaMemcpyFromSymbol_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_ptds_v7000, kMemcpy, kPts,
       in<read_from_symbol<cudaMemcpyFromSymbol_ptds_v7000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_v3020, kMemcpy, kAsync,
       in<read_from_symbol<cudaMemcpyFromSymbolAsync_v3020_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_ptsz_v7000, kMemcpy, kAsync | kPts,
       in<read_from_symbol<cudaMemcpyFromSymbolAsync_ptsz_v7000_params>>),
};
static_assert(!has_duplicates(kSymbolCopyCalls));

}  // namespace

std::span<const CallSpec> symbol_copy_calls() {
  return kSymbolCopyCalls;
}

}  // namespace racetrack::capture::decoder
