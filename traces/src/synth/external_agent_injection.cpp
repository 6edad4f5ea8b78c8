// The async checkpoint (Megatron-LM's async save through GPUDirect Storage's
// stream-ordered cuFileWriteAsync): at the start of each iteration the
// checkpoint stream joins compute (the last optimizer step has written the
// weights), and the storage DMA, an agent outside CUDA streams that no
// kernel or copy record shows, reads one layer's linear_fc1 weight straight
// from device memory (the shards rotate over the layers). Its access is
// declared with ANNOTATE_EXTERNAL_ACCESS and completes before the next
// record of checkpoint_done on the checkpoint stream; compute waits on that
// event before the step's first kernel (a blocking finalize of the save, so
// that no kernel taking the weight's pointer overlaps the DMA: with raw
// words each could be a writer).
// - C14: compute does not wait on checkpoint_done, so the optimizer step's
//   write of the weight races the DMA's read: a WAR between the record
//   where its completion is observed and the optimizer's replay.
#include "training_step.h"

namespace racetrack::synth {
namespace {

constexpr std::string_view kWriter = "checkpoint_writer (GPUDirect Storage)";

}  // namespace

void TrainingLoop::start_checkpoint() {
  const uint32_t layer = static_cast<uint32_t>(iteration_ % options_.layers);
  const Tensor& weight = weights_[layer].fc1;
  e_.range_push("checkpoint.async_save");
  e_.record(checkpoint_ready_, kCompute);
  e_.wait(kCheckpoint, checkpoint_ready_);
  e_.external_access(kWriter, weight, false, checkpoint_done_);
  e_.record(checkpoint_done_, kCheckpoint);
  checkpoint_unjoined_ = take(HazardShape::kC14);
  // Nothing else joins the checkpoint stream, so the optimizer's write is
  // unordered with the observed completion.
  if (checkpoint_unjoined_)
    e_.watch_external(HazardShape::kC14, e_.mark(), weight, false,
                      "iteration " + std::to_string(iteration_) + ", async checkpoint of layer" +
                          std::to_string(layer) + ".linear_fc1.weight");
  e_.range_pop();
}

void TrainingLoop::join_checkpoint() {
  if (!checkpoint_unjoined_) e_.wait(kCompute, checkpoint_done_);
  checkpoint_unjoined_ = false;
}

}  // namespace racetrack::synth
