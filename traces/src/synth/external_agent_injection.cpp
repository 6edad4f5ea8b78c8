// The async checkpoint (Megatron-LM's async save with a GPUDirect Storage
// writer): at the start of each iteration, once the host has seen the last
// optimizer step complete (an event after it, synchronised), a writer
// outside CUDA streams reads one layer's linear_fc1 weight straight from
// device memory, the shards rotating over the layers. The writer's access
// is declared with ANNOTATE_EXTERNAL_ACCESS; the training loop observes its
// completion (ANNOTATE_EXTERNAL_DONE, maybe_finalize_async_save) before the
// optimizer step writes the weights.
// - C14: the completion is observed only after the optimizer step (and its
//   loss.item() sync), so the step's write of the weight is not ordered
//   after the writer's read: a WAR between the declaration and the replay.
#include "training_step.h"

namespace racetrack::synth {
namespace {

constexpr std::string_view kWriter = "checkpoint_writer (GPUDirect Storage)";

}  // namespace

void TrainingLoop::start_checkpoint() {
  e_.record(checkpoint_ready_, kCompute);
  e_.sync_event(checkpoint_ready_);
  const uint32_t layer = static_cast<uint32_t>(iteration_ % options_.layers);
  const Tensor& weight = weights_[layer].fc1;
  e_.range_push("checkpoint.async_save");
  e_.external_access(kWriter, weight, false);
  checkpoint_done_late_ = take(HazardShape::kC14);
  if (checkpoint_done_late_)
    e_.watch_external(HazardShape::kC14, e_.mark(), weight, false,
                      "iteration " + std::to_string(iteration_) + ", async checkpoint of layer" +
                          std::to_string(layer) + ".linear_fc1.weight");
  e_.range_pop();
}

void TrainingLoop::finish_checkpoint(bool after_optimizer) {
  if (checkpoint_done_late_ != after_optimizer) return;
  e_.external_done(kWriter);
  checkpoint_done_late_ = false;
}

}  // namespace racetrack::synth
