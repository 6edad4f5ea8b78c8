// CUDA graphs: graph launches, stream capture and the graph structure that
// resource callbacks report (node creation, cloning, dependencies). The
// CUPTI exec and node ids are what kernel records carry (§6.4).
#include "callback_decoder_family.h"

namespace racetrack::capture::decoder {
namespace {

using enum ApiKind;

RACETRACK_FIELD_AT(cudaGraphLaunch_v10000_params, graphExec, 0);
RACETRACK_FIELD_AT(cudaGraphLaunch_v10000_params, stream, 8);
RACETRACK_FIELD_AT(cudaGraphLaunch_ptsz_v10000_params, graphExec, 0);
RACETRACK_FIELD_AT(cudaGraphLaunch_ptsz_v10000_params, stream, 8);
// cuGraphLaunch_params calls its CUgraphExec `hGraph`; the _ptsz twin says hGraphExec.
RACETRACK_FIELD_AT(cuGraphLaunch_params, hGraph, 0);
RACETRACK_FIELD_AT(cuGraphLaunch_params, hStream, 8);
RACETRACK_FIELD_AT(cuGraphLaunch_ptsz_params, hGraphExec, 0);
RACETRACK_FIELD_AT(cuGraphLaunch_ptsz_params, hStream, 8);

template <class Params>
bool read_graph_launch(const Params& p, DriverQueries& queries, ApiEvent& event) {
  if constexpr (requires(const Params& q) { q.graphExec; }) {
    event.handle = u64(p.graphExec);
  } else if constexpr (requires(const Params& q) { q.hGraphExec; }) {
    event.handle = u64(p.hGraphExec);
  } else {
    event.handle = u64(p.hGraph);
  }
  if (event.handle != 0) event.value = static_cast<uint32_t>(queries.graph_exec_id(event.handle));
  return read_stream(p, event);
}

// Stream capture: the stream, the capture mode where the call has one, and
// at EXIT the captured graph, to tie it to its instantiation.
RACETRACK_FIELD_AT(cudaStreamBeginCapture_v10000_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamBeginCapture_ptsz_v10000_params, stream, 0);
RACETRACK_FIELD_AT(cuStreamBeginCapture_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamBeginCapture_ptsz_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamBeginCapture_v2_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamBeginCapture_v2_ptsz_params, hStream, 0);
RACETRACK_FIELD_AT(cudaStreamEndCapture_v10000_params, stream, 0);
RACETRACK_FIELD_AT(cudaStreamEndCapture_ptsz_v10000_params, stream, 0);
RACETRACK_FIELD_AT(cuStreamEndCapture_params, hStream, 0);
RACETRACK_FIELD_AT(cuStreamEndCapture_ptsz_params, hStream, 0);

template <class Params>
bool read_capture_begin(const Params& p, ApiEvent& event) {
  RACETRACK_FIELD_AT(Params, mode, 8);
  event.value = static_cast<uint32_t>(p.mode);
  return read_stream(p, event);
}

RACETRACK_FIELD_AT(cudaStreamEndCapture_v10000_params, pGraph, 8);
RACETRACK_FIELD_AT(cudaStreamEndCapture_ptsz_v10000_params, pGraph, 8);
RACETRACK_FIELD_AT(cuStreamEndCapture_params, phGraph, 8);
RACETRACK_FIELD_AT(cuStreamEndCapture_ptsz_params, phGraph, 8);

template <class Params>
void read_captured_graph(const Params& p, ApiEvent& event) {
  if constexpr (requires(const Params& q) { q.pGraph; }) {
    event.handle = out_value(p.pGraph);
  } else {
    event.handle = out_value(p.phGraph);
  }
}

// Resources: the node, as its CUPTI id, and what the callback adds to it.
RACETRACK_FIELD_AT(CUpti_GraphData, node, 16);
RACETRACK_FIELD_AT(CUpti_GraphData, originalNode, 24);
RACETRACK_FIELD_AT(CUpti_GraphData, nodeType, 32);
RACETRACK_FIELD_AT(CUpti_GraphData, dependency, 40);
RACETRACK_FIELD_AT(CUpti_GraphData, graphExec, 48);

const CUpti_GraphData& graph_data(const CUpti_ResourceData& data, DriverQueries& queries, ApiEvent& event) {
  const auto& graph = *static_cast<const CUpti_GraphData*>(data.resourceDescriptor);
  event.handle = queries.graph_node_id(u64(graph.node));
  return graph;
}

bool read_node_created(const CUpti_ResourceData& data, DriverQueries& queries, ApiEvent& event) {
  event.value = static_cast<uint32_t>(graph_data(data, queries, event).nodeType);
  return true;
}

bool read_node_cloned(const CUpti_ResourceData& data, DriverQueries& queries, ApiEvent& event) {
  const CUpti_GraphData& graph = graph_data(data, queries, event);
  event.src = queries.graph_node_id(u64(graph.originalNode));
  if (graph.graphExec != nullptr) event.dst = queries.graph_exec_id(u64(graph.graphExec));
  return true;
}

bool read_dependency(const CUpti_ResourceData& data, DriverQueries& queries, ApiEvent& event) {
  const CUpti_GraphData& graph = graph_data(data, queries, event);
  event.src = queries.graph_node_id(u64(graph.dependency));
  return true;
}

constexpr CallSpec kGraphCalls[] = {
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, kGraphLaunch, 0,
       in<read_graph_launch<cudaGraphLaunch_v10000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000, kGraphLaunch, kPts,
       in<read_graph_launch<cudaGraphLaunch_ptsz_v10000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000, kCaptureBegin, 0,
       in<read_capture_begin<cudaStreamBeginCapture_v10000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_ptsz_v10000, kCaptureBegin, kPts,
       in<read_capture_begin<cudaStreamBeginCapture_ptsz_v10000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000, kCaptureEnd, 0,
       in<read_stream<cudaStreamEndCapture_v10000_params>>,
       out<read_captured_graph<cudaStreamEndCapture_v10000_params>>),
    rt(CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_ptsz_v10000, kCaptureEnd, kPts,
       in<read_stream<cudaStreamEndCapture_ptsz_v10000_params>>,
       out<read_captured_graph<cudaStreamEndCapture_ptsz_v10000_params>>),

    drv(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, kGraphLaunch, 0, in<read_graph_launch<cuGraphLaunch_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz, kGraphLaunch, kPts,
        in<read_graph_launch<cuGraphLaunch_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture, kCaptureBegin, 0,
        in<read_stream<cuStreamBeginCapture_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz, kCaptureBegin, kPts,
        in<read_stream<cuStreamBeginCapture_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2, kCaptureBegin, 0,
        in<read_capture_begin<cuStreamBeginCapture_v2_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz, kCaptureBegin, kPts,
        in<read_capture_begin<cuStreamBeginCapture_v2_ptsz_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture, kCaptureEnd, 0,
        in<read_stream<cuStreamEndCapture_params>>, out<read_captured_graph<cuStreamEndCapture_params>>),
    drv(CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz, kCaptureEnd, kPts,
        in<read_stream<cuStreamEndCapture_ptsz_params>>,
        out<read_captured_graph<cuStreamEndCapture_ptsz_params>>),

    resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED, kGraphNodeCreated, read_node_created),
    resource(CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED, kGraphNodeCloned, read_node_cloned),
    resource(CUPTI_CBID_RESOURCE_GRAPHNODE_DEPENDENCY_CREATED, kGraphDependency, read_dependency),
};
static_assert(!has_duplicates(kGraphCalls));

}  // namespace

std::span<const CallSpec> graph_calls() {
  return kGraphCalls;
}

}  // namespace racetrack::capture::decoder
