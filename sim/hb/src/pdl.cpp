#include "racetrack/hb/pdl.h"

namespace racetrack::hb {

PdlUnordered PdlChain::on_op(const v1::Op& op, uint64_t last_tick, bool host_saw_last,
                             const PdlWaitLookup& lookup) {
  PdlUnordered u;
  const bool kernel = op.has_kernel();
  // Only a kernel right behind a kernel is a PDL secondary: any other op in
  // between (an event record, a copy) keeps stream order.
  if (kernel && op.kernel().programmatic_stream_serialization() && last_kernel_tick_ &&
      last_kernel_tick_ == last_tick && !host_saw_last) {
    u.wait = lookup ? lookup(op.kernel()) : PdlWait::kUnknown;
    if (u.wait == PdlWait::kWaits) {
      // The wait covers its primary, but not what the primary itself
      // overlapped: the primary's own unordered ticks stay unordered.
      u.lo = last_.lo;
      u.hi = last_.hi;
    } else {
      // It may overlap its primary and whatever the primary overlapped
      // (one contiguous range: a sound superset when a waiting kernel sits
      // in the chain).
      u.lo = last_.empty() ? last_tick : last_.lo;
      u.hi = last_tick;
    }
  }
  last_kernel_tick_ = kernel ? last_tick + 1 : 0;
  last_ = kernel ? u : PdlUnordered{};
  return u;
}

}  // namespace racetrack::hb
