#include "racetrack/hb/graph_order.h"

#include <algorithm>

namespace racetrack::hb {
namespace {

std::string too_large(uint32_t nodes, size_t max_entries) {
  return "its " + std::to_string(nodes) +
         " nodes depend on each other in too many ways to order (more than " + std::to_string(max_entries) +
         " chain positions, racetrack's limit)";
}

}  // namespace

std::string GraphOrder::build(const v1::GraphLaunch& graph, size_t max_entries) {
  const auto& nodes = graph.nodes();
  const uint32_t n = static_cast<uint32_t>(nodes.size());
  place_.clear();
  begin_.assign(1, 0);
  reach_.clear();
  chain_length_.clear();
  for (uint32_t i = 0; i < n; ++i) {
    scratch_.clear();
    uint32_t chain = UINT32_MAX;
    for (uint32_t dep : nodes[static_cast<int>(i)].deps()) {
      if (dep >= i) continue;
      const Place p = place_[dep];
      if (chain == UINT32_MAX && chain_length_[p.chain] == p.pos + 1)
        chain = p.chain;  // dep is its chain's tip
      scratch_.insert(scratch_.end(), reach_.begin() + begin_[dep], reach_.begin() + begin_[dep + 1]);
      if (scratch_.size() > max_entries) return too_large(n, max_entries);
    }
    if (chain == UINT32_MAX) {
      chain = static_cast<uint32_t>(chain_length_.size());
      chain_length_.push_back(0);
    }
    const Place own{chain, chain_length_[chain]++};
    place_.push_back(own);
    scratch_.push_back(own);
    // Per chain the furthest position: sort by chain, then position descending.
    std::sort(scratch_.begin(), scratch_.end(), [](const Place& a, const Place& b) {
      return a.chain < b.chain || (a.chain == b.chain && a.pos > b.pos);
    });
    for (size_t k = 0; k < scratch_.size(); ++k)
      if (k == 0 || scratch_[k].chain != scratch_[k - 1].chain) reach_.push_back(scratch_[k]);
    if (reach_.size() > max_entries) return too_large(n, max_entries);
    begin_.push_back(static_cast<uint32_t>(reach_.size()));
  }
  return {};
}

bool GraphOrder::follows(uint32_t later, uint32_t earlier) const {
  if (later == earlier) return true;
  if (later >= place_.size() || earlier >= place_.size()) return false;
  const Place target = place_[earlier];
  const auto first = reach_.begin() + begin_[later], last = reach_.begin() + begin_[later + 1];
  const auto it =
      std::lower_bound(first, last, target.chain, [](const Place& p, uint32_t c) { return p.chain < c; });
  return it != last && it->chain == target.chain && it->pos >= target.pos;
}

}  // namespace racetrack::hb
