#include "captured_addresses.h"

#include <algorithm>

namespace racetrack::des {

bool CapturedAddresses::on_op(const v1::Op& op, const race::AccessResolver& resolver) {
  if (graphs_.is_captured(op)) {
    graphs_.on_captured(op, resolver);
    return true;
  }
  graphs_.on_op(op, resolver, unjoined_);
  return false;
}

race::SpaceKey CapturedAddresses::reference_space(const v1::Op& op, const race::ResolvedAccess& a,
                                                  Program& p) {
  if (!op.has_graph() || !op.graph().captured_seq()) return a.space;
  const race::CapturedRegion* then = graphs_.captured_region(op.graph().captured_seq(), a.space, a.lo, a.hi);
  // As the checker: a graph-pool intermediate's new owner is ordinary reuse,
  // ordered or not by happens-before; only a freed capture-time region is
  // touched whatever the order.
  if (!then || then->region == a.region || then->pool_capture || !then->free_seq) return a.space;
  const size_t free_op = p.index_of(then->free_seq);
  if (free_op == p.ops.size()) return a.space;
  if (std::find(retired_.begin(), retired_.end(), then->region) == retired_.end()) {
    retired_.push_back(then->region);
    p.retirements.push_back({static_cast<uint32_t>(free_op), then->space, retired_space(then->region),
                             then->base, then->base + then->size});
  }
  return retired_space(then->region);
}

}  // namespace racetrack::des
