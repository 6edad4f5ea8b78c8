// CUDA graphs for the trace assembler. Calls made while a stream is captured
// are not executed: they become node templates, keyed by the CUPTI id of the
// node they created. Instantiation clones every node (exec node id ->
// original id, grouped by graph exec), dependencies link original nodes, and
// a graph launch runs the exec's nodes: no callbacks fire per node, so the
// templates are all the trace knows of their arguments.
#pragma once
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "annotation_codec.h"
#include "api_event.h"

namespace racetrack::capture {

struct NodeTemplate {
  ApiEvent event;                         // kLaunch, kMemcpy or kMemset
  std::vector<uint64_t> words;            // argument words of a launch
  std::vector<AnnotatedAccess> accesses;  // from racetrack annotations
  uint64_t capture_end_seq = 0;           // the trace's CAPTURE_END op of its capture, 0 = unknown
};

struct LaunchedNode {
  uint64_t exec_node = 0;              // the id its device records carry
  const NodeTemplate* from = nullptr;  // nullptr: not seen being captured
  std::optional<uint32_t> type;        // CUgraphNodeType, when known
  std::vector<uint32_t> deps;          // indices of earlier nodes
};

class GraphTable {
 public:
  // A template made while a capture is open belongs to it: to the capture
  // of its stream, else (a stream forked into a capture) to the latest one.
  void add_template(uint64_t node_id, NodeTemplate node);
  // Stream capture on `stream` (a handle) begins, or ends at trace op
  // `end_seq`: its templates learn that seq (GraphLaunch.captured_seq).
  void on_capture_begin(uint64_t stream);
  void on_capture_end(uint64_t stream, uint64_t end_seq);
  // The CAPTURE_END seq of the capture the launched nodes came from, 0 = unknown.
  static uint64_t captured_seq(const std::vector<LaunchedNode>& nodes);
  void on_node_created(uint64_t node_id, uint32_t type) { types_[node_id] = type; }
  void on_cloned(uint64_t exec_node, uint64_t original, uint64_t graph_exec);
  void on_dependency(uint64_t node_id, uint64_t depends_on);

  // The nodes a launch of `graph_exec` runs, dependencies first (ties in
  // creation order); empty when no instantiation of it was seen.
  std::vector<LaunchedNode> nodes_of(uint64_t graph_exec) const;
  // How many kernel, copy and memset records such a launch produces.
  static size_t records_expected(const std::vector<LaunchedNode>& nodes);

 private:
  // Follows clones back to the node that was created (captured).
  uint64_t original_of(uint64_t node_id) const;

  std::unordered_map<uint64_t, NodeTemplate> templates_;
  std::vector<std::pair<uint64_t, std::vector<uint64_t>>>
      open_captures_;  // (stream, its template ids), by begin
  std::unordered_map<uint64_t, uint32_t> types_;
  std::unordered_map<uint64_t, uint64_t> cloned_from_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> exec_nodes_;  // by graph exec, in clone order
  std::unordered_map<uint64_t, std::vector<uint64_t>> deps_;        // original node -> originals it waits for
};

}  // namespace racetrack::capture
