// The real DriverQueries: CUPTI and driver lookups the decoder needs, with
// parameter layouts and function modules cached per thread (no locks on
// the launch path).
#pragma once
#include "callback_decoder.h"
#include "function_module_cache.h"
#include "param_layout_cache.h"

namespace racetrack::capture {

class ShimDriverQueries final : public DriverQueries {
 public:
  ShimDriverQueries();
  const ParamLayout* param_layout(uint64_t function_handle) override;
  uint32_t stream_id(CUcontext context, uint64_t stream, bool per_thread) override;
  uint32_t context_id(CUcontext context) override;
  uint64_t graph_exec_id(uint64_t graph_exec) override;
  uint64_t graph_node_id(uint64_t graph_node) override;
  uint64_t function_module(uint64_t function_handle) override;

 private:
  ParamLayoutCache layouts_;
  FunctionModuleCache modules_;
};

}  // namespace racetrack::capture
