// Decodes CUPTI callbacks into ApiEvents. Each API family
// (callback_decoder_<family>.cpp) lists the callbacks it records and their
// readers (callback_decoder_family.h); this file merges the families' tables
// and dispatches each callback to its entry.
#include "callback_decoder.h"

#include <algorithm>
#include <array>
#include <vector>

#include "callback_decoder_family.h"

namespace racetrack::capture {
namespace {

using namespace decoder;
using enum ApiKind;

// cudaErrorNotReady == CUDA_ERROR_NOT_READY: a query of unfinished work.
constexpr int32_t kNotReady = 600;

constexpr bool comes_before(const CallSpec& a, const CallSpec& b) {
  return a.domain != b.domain ? a.domain < b.domain : a.cbid < b.cbid;
}

// Every family's calls: sorted by (domain, cbid) for a binary search on
// every callback, and in family order for the subscription.
struct CallTables {
  std::vector<CallSpec> by_key;
  std::vector<CallbackId> subscribed;
};

CallTables merge_families() {
  const std::array families = {
      launch_calls(),      copy_calls(),   pitched_copy_calls(),   batch_copy_calls(), array_calls(),
      symbol_copy_calls(), memset_calls(), pitched_memset_calls(), memory_calls(),     sync_calls(),
      host_func_calls(),   graph_calls(),  module_calls(),         nvtx_calls()};
  CallTables tables;
  for (const std::span<const CallSpec> family : families) {
    for (const CallSpec& call : family) {
      tables.by_key.push_back(call);
      tables.subscribed.push_back({call.domain, call.cbid});
    }
  }
  std::sort(tables.by_key.begin(), tables.by_key.end(), comes_before);
  return tables;
}

// Built once, at the first subscription or callback.
const CallTables& call_tables() {
  static const CallTables tables = merge_families();
  return tables;
}

// The entry for a callback; nullptr when it is not recorded.
const CallSpec* find_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  const std::vector<CallSpec>& calls = call_tables().by_key;
  const CallSpec key{domain, cbid, kUnknown};
  const auto it = std::lower_bound(calls.begin(), calls.end(), key, comes_before);
  if (it == calls.end() || it->domain != domain || it->cbid != cbid) return nullptr;
  return &*it;
}

// Kinds whose `stream` names a stream to resolve to a CUPTI stream id.
bool names_stream(ApiKind kind) {
  switch (kind) {
    case kLaunch:
    case kMemcpy:
    case kMemset:
    case kHostFunc:
    case kEventRecord:
    case kStreamWait:
    case kStreamSync:
    case kStreamQuery:
    case kStreamCreate:
    case kStreamDestroy:
    case kMallocAsync:
    case kFreeAsync:
    case kGraphLaunch:
    case kCaptureBegin:
    case kCaptureEnd: return true;
    default: return false;
  }
}

void resolve_stream_id(const CUpti_CallbackData& data, DriverQueries& queries, ApiEvent& event) {
  if (data.context == nullptr) return;  // a thread's first call, at ENTER (§2.4)
  event.stream_id = queries.stream_id(data.context, event.stream, (event.flags & kFlagPerThreadStream) != 0);
}

// The callback structs themselves.
RACETRACK_FIELD_AT(CUpti_CallbackData, functionParams, 16);
RACETRACK_FIELD_AT(CUpti_CallbackData, functionReturnValue, 24);
RACETRACK_FIELD_AT(CUpti_CallbackData, context, 40);
RACETRACK_FIELD_AT(CUpti_CallbackData, correlationId, 64);
RACETRACK_FIELD_AT(CUpti_NvtxData, functionParams, 8);
RACETRACK_FIELD_AT(CUpti_ResourceData, context, 0);
RACETRACK_FIELD_AT(CUpti_ResourceData, resourceDescriptor, 16);

}  // namespace

std::span<const CallbackId> subscribed_callbacks() {
  return call_tables().subscribed;
}

bool decode_api_enter(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data,
                      DriverQueries& queries, ApiEvent& event, Payload& payload) {
  if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) return false;
  const CallSpec* call = find_call(domain, cbid);
  if (call == nullptr) return false;
  event.domain = domain == CUPTI_CB_DOMAIN_RUNTIME_API ? ApiDomain::kRuntime : ApiDomain::kDriver;
  event.cbid = cbid;
  event.correlation = data.correlationId;
  event.flags |= call->flags;
  event.payload_offset = payload.used;
  // Without parameters the call is still recorded, with its handles unknown.
  if (data.functionParams != nullptr && call->enter != nullptr &&
      !call->enter(data.functionParams, queries, event, payload)) {
    return false;
  }
  event.kind = call->kind;
  // At EXIT the stream is gone.
  if (event.kind == kStreamDestroy) resolve_stream_id(data, queries, event);
  return true;
}

void decode_api_exit(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data,
                     DriverQueries& queries, ApiEvent& event) {
  const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
  if (data.functionReturnValue != nullptr) {
    event.result = runtime ? static_cast<int32_t>(*static_cast<const cudaError_t*>(data.functionReturnValue))
                           : static_cast<int32_t>(*static_cast<const CUresult*>(data.functionReturnValue));
  }
  if (data.context != nullptr) event.context_id = queries.context_id(data.context);
  // A failed call's out-parameters and handles are not to be trusted; a
  // query of unfinished work still names a live stream.
  const bool succeeded = event.result == 0;
  if (succeeded && data.functionParams != nullptr) {
    const CallSpec* call = find_call(domain, cbid);
    if (call != nullptr && call->exit != nullptr) call->exit(data.functionParams, queries, event);
  }
  const bool stream_alive = (succeeded || event.result == kNotReady) && event.kind != kStreamDestroy;
  if (stream_alive && names_stream(event.kind)) resolve_stream_id(data, queries, event);
}

bool decode_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData& data, ApiEvent& event, Payload& payload) {
  const CallSpec* call = find_call(CUPTI_CB_DOMAIN_NVTX, cbid);
  if (call == nullptr) return false;
  event.kind = call->kind;
  event.domain = ApiDomain::kNvtx;
  event.cbid = cbid;
  const char* message = data.functionParams != nullptr && call->message != nullptr
                            ? call->message(data.functionParams)
                            : nullptr;
  append_text(message, event, payload);
  return true;
}

bool decode_resource(CUpti_CallbackId cbid, const CUpti_ResourceData& data, DriverQueries& queries,
                     ApiEvent& event) {
  const CallSpec* call = find_call(CUPTI_CB_DOMAIN_RESOURCE, cbid);
  if (call == nullptr || call->resource == nullptr || data.resourceDescriptor == nullptr) return false;
  event.kind = call->kind;
  event.domain = ApiDomain::kResource;
  event.cbid = cbid;
  if (data.context != nullptr) event.context_id = queries.context_id(data.context);
  return call->resource(data, queries, event);
}

}  // namespace racetrack::capture
