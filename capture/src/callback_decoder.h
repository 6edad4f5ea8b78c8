// Turns CUPTI callbacks (runtime, driver, NVTX and resource domains) into
// ApiEvents. Pure functions over the CUPTI structs: no CUDA runtime calls,
// no locks, no allocation (after the first call merges the API families'
// tables, callback_decoder_family.h); what needs the driver (parameter layouts, stream
// and graph ids) goes through DriverQueries, which the shim implements and
// tests fake.
#pragma once
#include <cupti.h>

#include <cstdint>
#include <span>
#include <vector>

#include "api_event.h"

namespace racetrack::capture {

// Where each kernel parameter lies in the packed parameter buffer.
struct ParamLayout {
  struct Param {
    uint32_t offset = 0;
    uint32_t size = 0;
  };
  std::vector<Param> params;
  uint32_t total_bytes() const { return params.empty() ? 0 : params.back().offset + params.back().size; }
};

class DriverQueries {
 public:
  virtual ~DriverQueries() = default;
  // The layout of a launched function or kernel handle (cuFuncGetParamInfo,
  // then cuKernelGetParamInfo when the handle is a CUkernel); nullptr when
  // neither knows it. Implementations cache per handle.
  virtual const ParamLayout* param_layout(uint64_t function_handle) = 0;
  // CUPTI's stream id (cuptiGetStreamIdEx); kNoId when it cannot tell.
  virtual uint32_t stream_id(CUcontext context, uint64_t stream, bool per_thread) = 0;
  virtual uint32_t context_id(CUcontext context) = 0;
  virtual uint64_t graph_exec_id(uint64_t graph_exec) = 0;
  virtual uint64_t graph_node_id(uint64_t graph_node) = 0;
};

// The caller's scratch space for variable-length data (argument words, NVTX
// text); the decoder appends and sets ApiEvent::payload_*.
struct Payload {
  uint64_t* words = nullptr;
  uint32_t capacity = 0;  // in words
  uint32_t used = 0;
};

struct CallbackId {
  CUpti_CallbackDomain domain;
  CUpti_CallbackId cbid;
};

// Every callback the shim enables (and nothing more: each one costs time on
// the application's threads).
std::span<const CallbackId> subscribed_callbacks();

// At API ENTER: fills kind, handles, sizes and argument words. Returns false
// for callbacks that are not recorded.
bool decode_api_enter(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data,
                      DriverQueries& queries, ApiEvent& event, Payload& payload);
// At API EXIT: the result and out-parameters (allocated addresses, created
// streams), and ids that need a valid context.
void decode_api_exit(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& data,
                     DriverQueries& queries, ApiEvent& event);
// NVTX push/pop/mark (ASCII messages; others are recorded without text).
bool decode_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData& data, ApiEvent& event, Payload& payload);
// Graph node creation, cloning and dependencies.
bool decode_resource(CUpti_CallbackId cbid, const CUpti_ResourceData& data, DriverQueries& queries,
                     ApiEvent& event);

}  // namespace racetrack::capture
