#include "shim/driver_queries.h"

#include <cuda.h>
#include <cupti.h>

namespace racetrack::capture {

ShimDriverQueries::ShimDriverQueries()
    : layouts_(&cuFuncGetParamInfo, &cuKernelGetParamInfo),
      modules_({&cuFuncGetModule, &cuKernelGetLibrary, &cuLibraryGetModule}) {}

const ParamLayout* ShimDriverQueries::param_layout(uint64_t function_handle) {
  return layouts_.get(function_handle);
}

uint64_t ShimDriverQueries::function_module(uint64_t function_handle) {
  return modules_.get(function_handle);
}

uint32_t ShimDriverQueries::stream_id(CUcontext context, uint64_t stream, bool per_thread) {
  uint32_t id = kNoId;
  if (cuptiGetStreamIdEx(context, reinterpret_cast<CUstream>(stream), per_thread ? 1 : 0, &id) !=
      CUPTI_SUCCESS)
    return kNoId;
  return id;
}

uint32_t ShimDriverQueries::context_id(CUcontext context) {
  uint32_t id = kNoId;
  if (context == nullptr || cuptiGetContextId(context, &id) != CUPTI_SUCCESS) return kNoId;
  return id;
}

uint64_t ShimDriverQueries::graph_exec_id(uint64_t graph_exec) {
  uint32_t id = 0;
  if (graph_exec == 0 || cuptiGetGraphExecId(reinterpret_cast<CUgraphExec>(graph_exec), &id) != CUPTI_SUCCESS)
    return 0;
  return id;
}

uint64_t ShimDriverQueries::graph_node_id(uint64_t graph_node) {
  uint64_t id = 0;
  if (graph_node == 0 || cuptiGetGraphNodeId(reinterpret_cast<CUgraphNode>(graph_node), &id) != CUPTI_SUCCESS)
    return 0;
  return id;
}

}  // namespace racetrack::capture
