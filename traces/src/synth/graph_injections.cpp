// The optimizer step as a CUDA graph (torch.cuda.graph around a capturable
// fused AdamW, as Megatron-LM and NeMo graph it): the warm-up iteration runs
// it eagerly, then captures it on a side stream (PyTorch's capture stream,
// joined with the current one first); every later iteration replays it on
// the compute stream. The gradients and weights it names are static
// tensors, accumulated in place, so each replay's captured addresses still
// belong to the tensors the graph was captured with.
// - C16: optimizer.zero_grad(set_to_none=True) after a replay frees one
//   gradient, and the next backward re-creates it in a new block (the
//   caching allocator hands back the same address, now another tensor's);
//   the next replay reads the address it captured (Megatron-LM#7474's shape:
//   a captured address outliving its tensor). `racetrack check` reports the
//   free and that replay whatever their order. synth then captures the
//   graph again (the fix), so one replay per injection reads a stale
//   address. Raw words carry no allocator frees, so C16 needs known modes.
// - C16_unjoined: the optimizer step is captured again (as after a change of
//   its hyper-parameters), with the gradient norm for clipping computed on a
//   side stream forked into the capture and never joined back before the
//   capture ends (vllm#57785). CUDA refuses that graph
//   (cudaErrorStreamCaptureUnjoined), so the loop keeps replaying the one
//   it had; check reports the side stream's captured work and the capture
//   end.
#include "kernels.h"
#include "training_step.h"

namespace racetrack::synth {

void TrainingLoop::adam(uint32_t stream) {
  for (const Weights& w : weights_)
    e_.kernel(stream, kernels::kAdam,
              {&w.grad_ln1, &w.grad_qkv, &w.grad_proj, &w.grad_ln2, &w.grad_fc1, &w.grad_fc2},
              {&w.ln1, &w.qkv, &w.proj, &w.ln2, &w.fc1, &w.fc2},
              kernels::scaled(120000, options_.activation_bytes));
}

void TrainingLoop::capture_optimizer() {
  e_.record(compute_to_capture_, kCompute);
  e_.wait(kCapture, compute_to_capture_);
  e_.begin_capture(kCapture);
  adam(kCapture);
  optimizer_graph_ = e_.end_capture();
  // And back (Megatron's graph manager synchronises here): nothing the
  // capture stream holds runs, but a model that ran it still finds order.
  e_.record(compute_to_capture_, kCapture);
  e_.wait(kCompute, compute_to_capture_);
}

void TrainingLoop::adam_step() {
  if (iteration_ == 0) {
    adam(kCompute);
    capture_optimizer();
    return;
  }
  e_.launch_graph(kCompute, optimizer_graph_);
  if (stale_capture_) {
    InjectedHazard h = std::move(*stale_capture_);
    stale_capture_.reset();
    h.second_seq = e_.builder().last_op().seq();
    h.iteration = iteration_;
    e_.add_truth(std::move(h));
    capture_optimizer();
  } else if (options_.known_modes && take(HazardShape::kC16)) {
    zero_grad_set_to_none();
  } else if (take(HazardShape::kC16Unjoined)) {
    capture_with_unjoined_side_stream();
  }
}

void TrainingLoop::capture_with_unjoined_side_stream() {
  e_.record(compute_to_capture_, kCompute);
  e_.wait(kCapture, compute_to_capture_);
  e_.begin_capture(kCapture);
  e_.fork_into_capture(kGraphSide, capture_fork_);
  const Tensor& grad = weights_[options_.layers - 1].grad_fc1;
  e_.kernel(kGraphSide, kernels::kL2Norm, {&grad}, {&grad_norm_},
            kernels::scaled(20000, options_.activation_bytes));
  InjectedHazard h;
  h.shape = HazardShape::kC16Unjoined;
  h.first_seq = e_.builder().last_op().seq();  // the side stream's last captured work
  h.kind = "RAW";                              // its write, which the capture end does not wait for
  h.space = grad_norm_.space;
  h.address = grad_norm_.address;
  h.bytes = grad_norm_.size;
  h.iteration = iteration_;
  h.where =
      "iteration " + std::to_string(iteration_) + ", optimizer graph captured again, grad_norm on graph_side";
  adam(kCapture);
  e_.end_capture();  // no compute.wait_stream(side) before it: a graph CUDA refuses
  h.second_seq = e_.builder().last_op().seq();
  e_.add_truth(std::move(h));
  e_.record(compute_to_capture_, kCapture);
  e_.wait(kCompute, compute_to_capture_);
}

void TrainingLoop::zero_grad_set_to_none() {
  const uint32_t layer = static_cast<uint32_t>(e_.rng().below(options_.layers));
  Tensor& grad = weights_[layer].grad_fc1;
  allocator_.free(grad);
  InjectedHazard h;
  h.shape = HazardShape::kC16;
  h.first_seq = e_.builder().last_op().seq();  // the block's free
  h.kind = "RAW";                              // check counts a free as a write of the block
  h.space = grad.space;
  h.address = grad.address;
  h.bytes = grad.size;
  h.where = "iteration " + std::to_string(iteration_) + ", optimizer graph, layer" + std::to_string(layer) +
            ".linear_fc1.weight.grad freed by zero_grad(set_to_none=True)";
  stale_capture_ = std::move(h);
  // The next backward's gradient, in the block the allocator hands back.
  grad = allocator_.allocate(grad.label, grad.size, kCompute);
}

}  // namespace racetrack::synth
