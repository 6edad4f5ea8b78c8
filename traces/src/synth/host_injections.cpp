// The host side of a step: the input pipeline and loss.item(), with the
// mistakes that break them:
// - C7: the loader refills the pinned staging buffer with the next batch
//   right after queueing the H2D that reads it, without synchronising on
//   the event after it (TensorRT-LLM#15546, vllm#25279).
// - C8: loss.item() reads its pinned staging without the stream sync, before
//   the D2H has landed (pytorch#180666).
// - C12: the loader's slot ring is off by one: the next batch is copied into
//   the slot the step's last lookup may still read, and the slot's
//   completion event waited on is that of an older step (DeepSpeed's IPG
//   double buffer, sglang#18746).
#include "training_step.h"

namespace racetrack::synth {

void TrainingLoop::setup_input() {
  const uint64_t bytes = std::max<uint64_t>(options_.activation_bytes / 256, 4096);
  batch_host_ = e_.driver_alloc("input_ids staging", bytes, v1::SPACE_PINNED_HOST);
  for (int k = 0; k < 2; ++k) {
    batch_slots_[k] = e_.driver_alloc("input_ids slot " + std::to_string(k), bytes, v1::SPACE_DEVICE);
    batch_ready_[k] = e_.new_event("input_ids ready " + std::to_string(k));
    slot_free_[k] = e_.new_event("input_ids slot free " + std::to_string(k));
  }
  staging_free_ = e_.new_event("input_ids staging free");
  // The first batch, before the first step.
  e_.host_write(batch_host_);
  copy_batch(0);
}

void TrainingLoop::wait_for_batch() {
  slot_ = next_slot_;
  e_.wait(kCompute, batch_ready_[slot_]);
}

void TrainingLoop::after_embedding() {
  if (forwards_run_ + 1 != options_.microbatches) return;
  last_lookup_ = e_.mark();
  prefetch_next_batch();
  e_.record(slot_free_[slot_], kCompute);
}

void TrainingLoop::prefetch_next_batch() {
  const std::string at = "iteration " + std::to_string(iteration_) + ", input_ids for iteration " +
                         std::to_string(iteration_ + 1);
  e_.range_push("dataloader.prefetch");
  const bool c12 = take(HazardShape::kC12);
  const uint32_t next = c12 ? slot_ : 1 - slot_;
  e_.wait(kInput, slot_free_[next]);
  if (c12) e_.watch(HazardShape::kC12, last_lookup_, batch_slots_[next], false, at);
  copy_batch(next);
  e_.range_pop();
  // This step keeps reading its slot; the next one reads `next`.
  next_slot_ = next;
}

// The staging buffer's batch to `slot` on the input stream, then the loader
// refills the staging buffer with the batch after it, once the copy has read
// it (C7 refills at once).
void TrainingLoop::copy_batch(uint32_t slot) {
  e_.copy(kInput, batch_slots_[slot], batch_host_);
  const OpMark read = e_.mark();
  e_.record(batch_ready_[slot], kInput);
  e_.record(staging_free_, kInput);
  if (take(HazardShape::kC7))
    e_.watch(HazardShape::kC7, read, batch_host_, false,
             "iteration " + std::to_string(iteration_) + ", input_ids refill");
  else
    e_.sync_event(staging_free_);  // staging_free.synchronize() before refilling
  e_.host_write(batch_host_);
}

void TrainingLoop::loss_item() {
  e_.copy(kCompute, loss_host_, loss_);
  if (take(HazardShape::kC8))
    e_.watch_last(HazardShape::kC8, loss_host_, true,
                  "iteration " + std::to_string(iteration_) + ", loss.item()");
  else
    e_.sync_stream(kCompute);
  e_.host_read(loss_host_);
}

}  // namespace racetrack::synth
