// The order among the nodes of one graph launch (rule 9 of
// docs/ordering-rules.md): node B follows node A when a chain of
// dependencies leads from A to B. Nodes are laid on chains (a node continues
// the chain of its first dependency that nothing continued yet, else starts
// one), and each node keeps, per chain, the furthest position it follows:
// linear in the launch for the chains and fork/join shapes of captured
// graphs, where a full clock per node would be quadratic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "racetrack.pb.h"

namespace racetrack::hb {

class GraphOrder {
 public:
  // Kept entries (chain positions over all nodes) past which a launch is
  // refused: 2^24 entries, 128 MiB.
  static constexpr size_t kMaxEntries = size_t{1} << 24;

  // Lays out the nodes of `graph`; dependencies on a node that does not come
  // earlier are ignored (`racetrack validate` reports them). Returns why the
  // launch is too large to order, or empty.
  std::string build(const v1::GraphLaunch& graph, size_t max_entries = kMaxEntries);
  // Whether node `later` is node `earlier` or follows it (0-based positions).
  bool follows(uint32_t later, uint32_t earlier) const;
  size_t node_count() const { return place_.size(); }
  // Chain positions kept for all nodes: what the order takes in memory.
  size_t entries() const { return reach_.size(); }

 private:
  struct Place {
    uint32_t chain, pos;
  };
  std::vector<Place> place_;     // by node
  std::vector<uint32_t> begin_;  // by node: its first entry in reach_ (one more at the end)
  std::vector<Place> reach_;     // per node, by chain: the furthest position it follows
  std::vector<uint32_t> chain_length_;
  std::vector<Place> scratch_;
};

}  // namespace racetrack::hb
