// What the callback decoder's API families are made of. Each family
// (callback_decoder_<family>.cpp: launches, copies, copies_2d, copies_batch, arrays,
// symbols, memsets, memsets_2d, memory, sync, host_funcs, graphs, modules,
// nvtx) lists its recorded callbacks in a table of CallSpecs,
// each with the reader that takes that call's fields from its parameter
// struct (docs/cupti-notes.md §3.2); callback_decoder.cpp merges the tables and
// dispatches. Every field read is pinned by a static_assert with the CUDA
// 13.0 offsets, beside the reader or the call that reads it, so a header
// change fails the build instead of decoding garbage (§8).
#pragma once
#include <cupti.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "callback_decoder.h"

namespace racetrack::capture::decoder {

#define RACETRACK_FIELD_AT(type, field, offset) \
  static_assert(offsetof(type, field) == (offset), #type "::" #field " moved (CUDA header change?)")

// Argument words are the parameter bytes as the host lays them out.
static_assert(std::endian::native == std::endian::little, "argument words assume a little-endian host");

// At ENTER: the call's fields into the event; false when it is not recorded.
using EnterReader = bool (*)(const void* params, DriverQueries& queries, ApiEvent& event, Payload& payload);
// At the EXIT of a successful call: its out-parameters.
using ExitReader = void (*)(const void* params, DriverQueries& queries, ApiEvent& event);
// A resource callback's data; false when it is not recorded.
using ResourceReader = bool (*)(const CUpti_ResourceData& data, DriverQueries& queries, ApiEvent& event);
// An NVTX call's ASCII message; nullptr when it has none.
using MessageReader = const char* (*)(const void* params);

struct CallSpec {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
  ApiKind kind;
  uint16_t flags = 0;
  EnterReader enter = nullptr;  // nullptr: nothing to read, the call itself is the event
  ExitReader exit = nullptr;
  ResourceReader resource = nullptr;
  MessageReader message = nullptr;
};

constexpr uint16_t kAsync = kFlagAsync;
constexpr uint16_t kPts = kFlagPerThreadStream;  // _ptsz / _ptds entry point

constexpr CallSpec rt(CUpti_runtime_api_trace_cbid cbid, ApiKind kind, uint16_t flags = 0,
                      EnterReader enter = nullptr, ExitReader exit = nullptr) {
  return {CUPTI_CB_DOMAIN_RUNTIME_API, cbid, kind, flags, enter, exit};
}
constexpr CallSpec drv(CUpti_driver_api_trace_cbid cbid, ApiKind kind, uint16_t flags = 0,
                       EnterReader enter = nullptr, ExitReader exit = nullptr) {
  return {CUPTI_CB_DOMAIN_DRIVER_API, cbid, kind, flags, enter, exit};
}
constexpr CallSpec nvtx(CUpti_nvtx_api_trace_cbid cbid, ApiKind kind, MessageReader message = nullptr) {
  return {CUPTI_CB_DOMAIN_NVTX, cbid, kind, 0, nullptr, nullptr, nullptr, message};
}
constexpr CallSpec resource(CUpti_CallbackIdResource cbid, ApiKind kind, ResourceReader reader) {
  return {CUPTI_CB_DOMAIN_RESOURCE, cbid, kind, 0, nullptr, nullptr, reader};
}

// Whether a family's table lists a callback twice (each table is checked
// with a static_assert; callback_decoder.cpp checks them together).
constexpr bool has_duplicates(std::span<const CallSpec> calls) {
  for (size_t i = 0; i < calls.size(); ++i)
    for (size_t j = i + 1; j < calls.size(); ++j)
      if (calls[i].domain == calls[j].domain && calls[i].cbid == calls[j].cbid) return true;
  return false;
}

// The families' tables.
std::span<const CallSpec> launch_calls();
std::span<const CallSpec> copy_calls();
std::span<const CallSpec> pitched_copy_calls();
std::span<const CallSpec> batch_copy_calls();
std::span<const CallSpec> array_calls();
std::span<const CallSpec> symbol_copy_calls();
std::span<const CallSpec> memset_calls();
std::span<const CallSpec> pitched_memset_calls();
std::span<const CallSpec> memory_calls();
std::span<const CallSpec> sync_calls();
std::span<const CallSpec> host_func_calls();
std::span<const CallSpec> graph_calls();
std::span<const CallSpec> module_calls();
std::span<const CallSpec> nvtx_calls();

// NVTX text into the payload (callback_decoder_nvtx.cpp).
void append_text(const char* text, ApiEvent& event, Payload& payload);

// ---------------------------------------------------------------------------
// Adapters from typed readers to table entries: in<R> reads at ENTER, out<R>
// reads out-parameters at EXIT, e.g.
//   in<read_runtime_copy<cudaMemcpy_v3020_params>>
// takes any of bool(const P&, ApiEvent&), bool(const P&, DriverQueries&,
// ApiEvent&) or bool(const P&, DriverQueries&, ApiEvent&, Payload&).

template <class Reader>
struct ParamsOf;
template <class R, class P, class... Rest>
struct ParamsOf<R (*)(const P&, Rest...)> {
  using type = P;
};

template <auto Read>
bool in(const void* params, DriverQueries& queries, ApiEvent& event, Payload& payload) {
  using Params = typename ParamsOf<decltype(Read)>::type;
  const Params& p = *static_cast<const Params*>(params);
  if constexpr (std::is_invocable_v<decltype(Read), const Params&, ApiEvent&>) {
    return Read(p, event);
  } else if constexpr (std::is_invocable_v<decltype(Read), const Params&, DriverQueries&, ApiEvent&>) {
    return Read(p, queries, event);
  } else {
    return Read(p, queries, event, payload);
  }
}

// For void(const P&, ApiEvent&) or void(const P&, DriverQueries&, ApiEvent&).
template <auto Read>
void out(const void* params, DriverQueries& queries, ApiEvent& event) {
  using Params = typename ParamsOf<decltype(Read)>::type;
  const Params& p = *static_cast<const Params*>(params);
  if constexpr (std::is_invocable_v<decltype(Read), const Params&, ApiEvent&>) {
    Read(p, event);
  } else {
    Read(p, queries, event);
  }
}

// ---------------------------------------------------------------------------
// Small helpers the families share.

template <class Params>
const Params& as(const void* params) {
  return *static_cast<const Params*>(params);
}

inline uint64_t u64(const void* pointer) {
  return reinterpret_cast<uintptr_t>(pointer);
}
inline uint64_t u64(CUdeviceptr address) {
  return address;
}

// An out-parameter's value, 0 when the caller passed no place for it.
template <class T>
uint64_t out_value(const T* out) {
  return out != nullptr ? u64(*out) : 0;
}

// cudaMemcpyKind numbers, which the driver's copies use too (kCopyDefault:
// the direction follows the addresses).
inline constexpr uint32_t kHostToHost = 0, kHostToDevice = 1, kDeviceToHost = 2, kDeviceToDevice = 3,
                          kCopyDefault = 4;

// cudaStreamPerThread == CU_STREAM_PER_THREAD.
constexpr uint64_t kPerThreadStreamHandle = 0x2;

inline void set_stream(ApiEvent& event, uint64_t stream) {
  event.stream = stream;
  if (stream == kPerThreadStreamHandle) event.flags |= kFlagPerThreadStream;
}

// Room for `count` payload words of the event, all or nothing: nullptr (and
// no words taken) when there is too little.
inline uint64_t* reserve_words(uint32_t count, ApiEvent& event, Payload& payload) {
  event.payload_offset = payload.used;
  event.payload_words = 0;
  if (payload.words == nullptr || payload.used > payload.capacity || payload.capacity - payload.used < count)
    return nullptr;
  uint64_t* out = payload.words + payload.used;
  payload.used += count;
  event.payload_words = count;
  return out;
}

inline bool append_words(const uint64_t* words, uint32_t count, ApiEvent& event, Payload& payload) {
  uint64_t* out = reserve_words(count, event, payload);
  if (out == nullptr) return false;
  std::copy(words, words + count, out);
  return true;
}

// Readers below take one family of parameter structs and return true (the
// call is recorded). A reader asserts the offsets of fields that all its
// structs spell alike; fields spelled differently (stream or hStream, ...)
// are asserted per struct instead.

// Calls without a stream argument stay on stream 0.
template <class Params>
bool read_stream(const Params& p, ApiEvent& event) {
  if constexpr (requires(const Params& q) { q.stream; }) {
    set_stream(event, u64(p.stream));
  } else if constexpr (requires(const Params& q) { q.hStream; }) {
    set_stream(event, u64(p.hStream));
  }
  return true;
}

template <class Params>
bool read_event(const Params& p, ApiEvent& event) {
  if constexpr (requires(const Params& q) { q.event; }) {
    event.event = u64(p.event);
  } else {
    event.event = u64(p.hEvent);
  }
  return true;
}

// Into `value`, for calls that have flags.
template <class Params>
void read_flags(const Params& p, ApiEvent& event) {
  if constexpr (requires(const Params& q) { q.flags; }) {
    event.value = p.flags;
  } else if constexpr (requires(const Params& q) { q.Flags; }) {
    event.value = p.Flags;
  }
}

}  // namespace racetrack::capture::decoder
