// The reload's H2D and the reload event, with the mistakes that change
// them:
// - C9: the reload event is recorded on the offload stream instead of the
//   reload stream that ran the H2D (Megatron-LM#3140); the consumer waits on
//   it and is not ordered after the copy.
// - C10: the reload is split over two copy streams (the second half on the
//   offload stream) and the consumer waits on the reload stream's event
//   only (DeepSpeed#8061's one-of-several producers). The reload stream
//   waits for its helper at its next reload, so only the consumer's reads
//   race, not every later owner of the block.
// - C13: the new block is zero-filled on the compute stream (torch.zeros
//   for torch.empty) after the reload stream's join with compute, so the
//   memset and the H2D both write it unordered (vllm#45357).
#include "training_step.h"

namespace racetrack::synth {

std::optional<HazardShape> TrainingLoop::reload_copy(Group& grp, const std::string& at) {
  if (take(HazardShape::kC13)) {
    e_.memset(kCompute, grp.reloaded);
    e_.watch_last(HazardShape::kC13, grp.reloaded, true, at);
    e_.copy(kReload, grp.reloaded, grp.pinned);
    return HazardShape::kC13;
  }
  if (take(HazardShape::kC10)) {
    const uint64_t half = grp.reloaded.size / 2;
    e_.copy(kReload, grp.reloaded.part(0, half), grp.pinned.part(0, half));
    // The second copy stream joins compute and the offload (its own event)
    // as the reload stream did, so only the consumer's wait is missing.
    e_.record(compute_to_offload_, kCompute);
    e_.wait(kOffload, compute_to_offload_);
    const Tensor second = grp.reloaded.part(half, grp.reloaded.size - half);
    e_.copy(kOffload, second, grp.pinned.part(half, grp.pinned.size - half));
    e_.watch_last(HazardShape::kC10, second, true, at);
    e_.record(helper_done_, kOffload);
    helper_pending_ = true;
    return HazardShape::kC10;
  }
  e_.copy(kReload, grp.reloaded, grp.pinned);
  if (take(HazardShape::kC9)) {
    grp.event_on_wrong_stream = true;
    e_.watch_last(HazardShape::kC9, grp.reloaded, true, at);
    return HazardShape::kC9;
  }
  return std::nullopt;
}

void TrainingLoop::record_reload_event(const Group& grp) {
  e_.record(grp.reload_event, grp.event_on_wrong_stream ? kOffload : kReload);
}

}  // namespace racetrack::synth
