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
};

struct LaunchedNode {
  uint64_t exec_node = 0;              // the id its device records carry
  const NodeTemplate* from = nullptr;  // nullptr: not seen being captured
  std::optional<uint32_t> type;        // CUgraphNodeType, when known
  std::vector<uint32_t> deps;          // indices of earlier nodes
};

class GraphTable {
 public:
  void add_template(uint64_t node_id, NodeTemplate node) { templates_[node_id] = std::move(node); }
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
  std::unordered_map<uint64_t, uint32_t> types_;
  std::unordered_map<uint64_t, uint64_t> cloned_from_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> exec_nodes_;  // by graph exec, in clone order
  std::unordered_map<uint64_t, std::vector<uint64_t>> deps_;        // original node -> originals it waits for
};

}  // namespace racetrack::capture
