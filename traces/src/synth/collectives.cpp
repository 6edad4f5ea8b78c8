// Data parallelism in the modelled step (docs/distributed.md): the
// collectives a data-parallel rank launches on its communication stream,
// with compute joined to them as PyTorch's Work.wait() does
// (cudaStreamWaitEvent on the collective's end event), and the three
// communication-stream races users hit:
// - C6_allgather: FSDP all-gathers the sharded embedding before the first
//   lookup; the lookup reads the gathered weight without waiting for the
//   all-gather (no Work.wait(): the consumer-side twin of pytorch#197827,
//   whose all-gather read clones it had not waited for).
// - C12_bucket: DeepSpeed's double-buffered gradient bucket: each layer's
//   gradients are copied into one of two slots on compute, all-reduced and
//   copied out on the communication stream; refilling a slot must wait for
//   its last copy-out, and the bug refills it without that wait (the IPG
//   bucket chain, DeepSpeed#6993 -> #8366).
// - C11_stash: the loss is all-reduced for logging and copied to the host
//   on the offload stream; the correct release is record_stream on that
//   stream, the bug frees it after a join with the collective only
//   (ProcessGroupNCCL's stash replacing record_stream, pytorch#188655), so
//   the next allocation writes the block while the copy still reads it.
#include "kernels.h"
#include "training_step.h"

namespace racetrack::synth {
namespace {

std::string at(uint64_t iteration, const std::string& what) {
  return "iteration " + std::to_string(iteration) + ", " + what;
}

}  // namespace

// The per-token loss logged each step: one value per token of a microbatch.
uint64_t TrainingLoop::logged_bytes() const {
  return std::max<uint64_t>(options_.activation_bytes / 64, 512);
}

void TrainingLoop::setup_collectives() {
  if (!options_.collectives()) return;
  const uint64_t parts = std::max<uint32_t>(options_.world_size, 2);
  embedding_shard_ = allocator_.allocate("embedding.weight.shard",
                                         std::max<uint64_t>(embedding_.size / parts, 512), kCompute);
  const Weights& w = weights_.front();
  const uint64_t bucket = w.grad_ln1.size + w.grad_qkv.size + w.grad_proj.size + w.grad_ln2.size +
                          w.grad_fc1.size + w.grad_fc2.size;
  for (int slot = 0; slot < 2; ++slot) {
    buckets_[slot] = allocator_.allocate("grad_bucket" + std::to_string(slot), bucket, kCompute);
    bucket_free_[slot] = e_.new_event("grad_bucket" + std::to_string(slot) + "_free");
  }
  loss_log_host_ = e_.driver_alloc("loss log staging", logged_bytes(), v1::SPACE_PINNED_HOST);
  compute_to_comm_ = e_.new_event("compute_to_comm");
  gathered_ = e_.new_event("embedding_gathered");
  loss_reduced_ = e_.new_event("loss_reduced");
}

void TrainingLoop::gather_parameters() {
  if (!options_.collectives()) return;
  e_.range_push("all_gather.embedding");
  e_.record(compute_to_comm_, kCompute);
  e_.wait(kComm, compute_to_comm_);
  e_.kernel(kComm, kernels::kAllGather, {&embedding_shard_}, {&embedding_},
            kernels::scaled(60000, options_.activation_bytes));
  const bool skip_wait = take(HazardShape::kC6AllGather);
  if (skip_wait)
    e_.watch_last(HazardShape::kC6AllGather, embedding_, true, at(iteration_, "embedding all-gather"));
  e_.record(gathered_, kComm);
  if (!skip_wait) e_.wait(kCompute, gathered_);  // work.wait()
  e_.range_pop();
}

void TrainingLoop::reduce_layer_gradients(uint32_t layer) {
  if (!options_.collectives()) return;
  Weights& w = weights_[layer];
  const int slot = static_cast<int>(layer % 2);
  const Tensor& bucket = buckets_[slot];
  e_.range_push("reduce_gradients.layer" + std::to_string(layer));
  if (bucket_used_[slot] && !skip_bucket_wait_[slot]) e_.wait(kCompute, bucket_free_[slot]);
  skip_bucket_wait_[slot] = false;
  const std::vector<const Tensor*> grads = {&w.grad_ln1, &w.grad_qkv, &w.grad_proj,
                                            &w.grad_ln2, &w.grad_fc1, &w.grad_fc2};
  e_.kernel(kCompute, kernels::kBucketCopy, grads, {&bucket},
            kernels::scaled(20000, options_.activation_bytes));
  e_.record(compute_to_comm_, kCompute);
  e_.wait(kComm, compute_to_comm_);
  e_.kernel(kComm, kernels::kAllReduce, {&bucket}, {&bucket},
            kernels::scaled(250000, options_.activation_bytes));
  e_.kernel(kComm, kernels::kBucketSplit, {&bucket}, grads,
            kernels::scaled(20000, options_.activation_bytes));
  if (take(HazardShape::kC12Bucket)) {
    skip_bucket_wait_[slot] = true;
    e_.watch_last(
        HazardShape::kC12Bucket, bucket, false,
        at(iteration_, "gradient bucket " + std::to_string(slot) + " after layer" + std::to_string(layer)));
  }
  e_.record(bucket_free_[slot], kComm);
  bucket_used_[slot] = true;
  e_.range_pop();
}

void TrainingLoop::wait_for_gradients() {
  if (!options_.collectives()) return;
  // Every bucket's work.wait() before the optimizer reads the gradients.
  for (int slot = 0; slot < 2; ++slot)
    if (bucket_used_[slot]) e_.wait(kCompute, bucket_free_[slot]);
}

void TrainingLoop::log_loss() {
  if (!options_.collectives()) return;
  e_.range_push("log_loss");
  Tensor avg = allocator_.allocate("loss.per_token", logged_bytes(), kCompute);
  e_.kernel(kCompute, kernels::kAdd, {&loss_, &loss_}, {&avg}, 5000);
  e_.record(compute_to_comm_, kCompute);
  e_.wait(kComm, compute_to_comm_);
  e_.kernel(kComm, kernels::kAllReduce, {&avg}, {&avg}, 20000);
  e_.record(loss_reduced_, kComm);
  e_.wait(kOffload, loss_reduced_);
  e_.copy(kOffload, loss_log_host_, avg);
  const bool stash = take(HazardShape::kC11Stash);
  if (stash)
    e_.watch_last(HazardShape::kC11Stash, avg, false, at(iteration_, "loss all-reduced for logging"));
  e_.wait(kCompute, loss_reduced_);  // work.wait(): reaches the collective, not the copy
  if (stash)
    allocator_.free(avg);
  else
    allocator_.free_after_use(avg, kOffload);  // record_stream(offload)
  // The next allocation of that size takes the freed block at once.
  Tensor norms = allocator_.allocate("grad_norm.per_token", logged_bytes(), kCompute);
  e_.kernel(kCompute, kernels::kL2Norm, {&grad_norm_}, {&norms}, 5000);
  allocator_.free(norms);
  // The logger prints it once the copy is done.
  e_.sync_stream(kOffload);
  e_.host_read(loss_log_host_);
  e_.range_pop();
}

}  // namespace racetrack::synth
