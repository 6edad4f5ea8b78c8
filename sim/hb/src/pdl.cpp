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

namespace racetrack::hb {

VectorClock trigger_clock(const VectorClock& kernel_clock, Epoch kernel, const PdlUnordered& pdl) {
  VectorClock trigger = kernel_clock;
  trigger.set(kernel.agent, pdl.empty() ? kernel.tick - 1 : pdl.lo - 1);
  return trigger;
}

void ProgrammaticWaits::add(const ProgrammaticWait& w) {
  if (waits_.size() == kKept) waits_.erase(waits_.begin());
  waits_.push_back(w);
}

const ProgrammaticWait* ProgrammaticWaits::find(uint64_t kernel_seq) const {
  for (auto it = waits_.rbegin(); it != waits_.rend(); ++it)
    if (it->kernel_seq == kernel_seq) return &*it;
  return nullptr;
}

}  // namespace racetrack::hb
