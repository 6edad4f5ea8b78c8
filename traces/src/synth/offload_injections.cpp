// How an offloaded tensor is released after its D2H, and the two mistakes
// that free it too early: C2 (no record_stream at all) and C11 (a join with
// a third stream, the reload stream, whose last event does not cover the
// offload stream's read). C6 (the offload not joined with compute) is the
// missing join at the top of TrainingLoop::offload.
#include "training_step.h"

namespace racetrack::synth {

void TrainingLoop::release_offloaded(const Tensor& saved, Release how) {
  switch (how) {
    case Release::kRecordStream: allocator_.free_after_use(saved, kOffload); return;
    case Release::kNoRecordStream: allocator_.free(saved); return;
    case Release::kJoinElsewhere:
      // compute.wait_event(last reload event) stands in for record_stream:
      // it reaches the reload stream, not the offload stream still reading.
      e_.wait(kCompute, last_reload_event_);
      allocator_.free(saved);
      return;
  }
}

}  // namespace racetrack::synth
