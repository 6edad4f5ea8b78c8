// The order one access of an op happens at, as the shadow memory sees it.
#pragma once

#include "racetrack/hb/happens_before.h"

namespace racetrack::race {

// A staged copy's source (access 0) is read by the calling thread before the
// call returns; every other access happens at the op (or its graph node).
inline hb::OpOrder access_order(const hb::OpOrder& order, const v1::Op& op, uint32_t index, uint32_t node) {
  const bool staged_read = order.staged_clock && op.has_memcpy() && index == 0;
  return staged_read ? order.staged_read() : order.at_node(node);
}

}  // namespace racetrack::race
