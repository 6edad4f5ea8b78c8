// The host side of a step and its mistakes:
// - C8: loss.item() reads the pinned staging without the stream sync, before
//   the D2H has landed (pytorch#180666's gradient hook reading early).
#include "training_step.h"

namespace racetrack::synth {

void TrainingLoop::loss_item() {
  e_.copy(kCompute, loss_host_, loss_);
  if (take(HazardShape::kC8)) {
    e_.watch_last(HazardShape::kC8, loss_host_, true,
                  "iteration " + std::to_string(iteration_) + ", loss.item()");
  } else {
    e_.sync_stream(kCompute);
  }
  e_.host_read(loss_host_);
}

}  // namespace racetrack::synth
