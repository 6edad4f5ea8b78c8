#include "assembler_graphs.h"

#include <algorithm>
#include <set>

namespace racetrack::capture {
namespace {

// CUgraphNodeType values of the nodes that produce device records.
constexpr uint32_t kKernelNode = 0, kMemcpyNode = 1, kMemsetNode = 2;

std::optional<uint32_t> type_of_template(const NodeTemplate& node) {
  switch (node.event.kind) {
    case ApiKind::kLaunch: return kKernelNode;
    case ApiKind::kMemcpy: return kMemcpyNode;
    case ApiKind::kMemset: return kMemsetNode;
    default: return std::nullopt;
  }
}

}  // namespace

void GraphTable::add_template(uint64_t node_id, NodeTemplate node) {
  if (!open_captures_.empty()) {
    auto own = std::find_if(open_captures_.begin(), open_captures_.end(),
                            [&](const auto& c) { return c.first == node.event.stream; });
    (own != open_captures_.end() ? own : open_captures_.end() - 1)->second.push_back(node_id);
  }
  templates_[node_id] = std::move(node);
}

void GraphTable::on_capture_begin(uint64_t stream) {
  open_captures_.push_back({stream, {}});
}

void GraphTable::on_capture_end(uint64_t stream, uint64_t end_seq) {
  auto it = std::find_if(open_captures_.begin(), open_captures_.end(),
                         [&](const auto& c) { return c.first == stream; });
  if (it == open_captures_.end()) return;
  for (uint64_t node : it->second)
    if (auto t = templates_.find(node); t != templates_.end()) t->second.capture_end_seq = end_seq;
  open_captures_.erase(it);
}

uint64_t GraphTable::captured_seq(const std::vector<LaunchedNode>& nodes) {
  for (const LaunchedNode& n : nodes)
    if (n.from && n.from->capture_end_seq) return n.from->capture_end_seq;
  return 0;
}

void GraphTable::on_cloned(uint64_t exec_node, uint64_t original, uint64_t graph_exec) {
  cloned_from_[exec_node] = original;
  exec_nodes_[graph_exec].push_back(exec_node);
}

void GraphTable::on_dependency(uint64_t node_id, uint64_t depends_on) {
  deps_[original_of(node_id)].push_back(original_of(depends_on));
}

uint64_t GraphTable::original_of(uint64_t node_id) const {
  // A graph cloned before instantiation adds a link; a cycle would be a bug
  // upstream, so the walk is bounded.
  for (int hops = 0; hops < 8; ++hops) {
    auto it = cloned_from_.find(node_id);
    if (it == cloned_from_.end() || templates_.count(node_id)) break;
    node_id = it->second;
  }
  return node_id;
}

std::vector<LaunchedNode> GraphTable::nodes_of(uint64_t graph_exec) const {
  auto exec = exec_nodes_.find(graph_exec);
  if (exec == exec_nodes_.end()) return {};
  const std::vector<uint64_t>& clones = exec->second;
  const size_t n = clones.size();
  std::vector<uint64_t> originals(n);
  std::unordered_map<uint64_t, size_t> index_of;
  for (size_t i = 0; i < n; ++i) index_of.emplace(originals[i] = original_of(clones[i]), i);

  // Kahn's algorithm over the clone indices; ready nodes in creation order.
  std::vector<std::vector<size_t>> preds(n), succs(n);
  for (size_t i = 0; i < n; ++i) {
    auto deps = deps_.find(originals[i]);
    if (deps == deps_.end()) continue;
    for (uint64_t d : deps->second) {
      auto j = index_of.find(d);
      if (j == index_of.end() || j->second == i) continue;
      if (std::find(preds[i].begin(), preds[i].end(), j->second) != preds[i].end()) continue;
      preds[i].push_back(j->second);
      succs[j->second].push_back(i);
    }
  }
  std::vector<size_t> waiting(n);
  std::set<std::pair<uint64_t, size_t>> ready;
  for (size_t i = 0; i < n; ++i)
    if ((waiting[i] = preds[i].size()) == 0) ready.emplace(originals[i], i);
  std::vector<size_t> order;
  while (!ready.empty()) {
    const size_t i = ready.begin()->second;
    ready.erase(ready.begin());
    order.push_back(i);
    for (size_t s : succs[i])
      if (--waiting[s] == 0) ready.emplace(originals[s], s);
  }
  // A cycle cannot be launched; keep its nodes, without the edges that close it.
  for (size_t i = 0; i < n; ++i)
    if (waiting[i] > 0) order.push_back(i);

  std::vector<uint32_t> position(n);
  for (size_t p = 0; p < order.size(); ++p) position[order[p]] = static_cast<uint32_t>(p);
  std::vector<LaunchedNode> out(n);
  for (size_t p = 0; p < order.size(); ++p) {
    const size_t i = order[p];
    LaunchedNode& node = out[p];
    node.exec_node = clones[i];
    if (auto t = templates_.find(originals[i]); t != templates_.end()) {
      node.from = &t->second;
      node.type = type_of_template(t->second);
    }
    if (auto t = types_.find(originals[i]); t != types_.end() && !node.type) node.type = t->second;
    for (size_t j : preds[i])
      if (position[j] < p) node.deps.push_back(position[j]);
    std::sort(node.deps.begin(), node.deps.end());
  }
  return out;
}

size_t GraphTable::records_expected(const std::vector<LaunchedNode>& nodes) {
  // A node of unknown type is counted: better to wait for a record that
  // never comes (until the timeout) than to write before one that does.
  return static_cast<size_t>(std::count_if(nodes.begin(), nodes.end(), [](const LaunchedNode& n) {
    return !n.type || *n.type == kKernelNode || *n.type == kMemcpyNode || *n.type == kMemsetNode;
  }));
}

}  // namespace racetrack::capture
