#include "training_step.h"

#include <algorithm>

#include "kernels.h"

namespace racetrack::synth {
namespace {

using namespace kernels;

constexpr uint32_t kRetriesPerShape = 64;
const char* const kGroupNames[2] = {"core_attn", "fc1"};

}  // namespace

TrainingLoop::TrainingLoop(Emitter& emitter, const SynthOptions& options)
    : e_(emitter), options_(options), allocator_(emitter, 1ull << 30), pinned_(emitter) {
  retries_left_.fill(kRetriesPerShape);
  setup();
}

Tensor TrainingLoop::alloc(const std::string& what, uint32_t mb, uint32_t layer, uint64_t size,
                           uint32_t stream) {
  return allocator_.allocate("mb" + std::to_string(mb) + ".layer" + std::to_string(layer) + "." + what, size,
                             stream);
}

void TrainingLoop::setup() {
  const uint64_t act = options_.activation_bytes;
  weights_.resize(options_.layers);
  for (uint32_t l = 0; l < options_.layers; ++l) {
    const std::string p = "layer" + std::to_string(l) + ".";
    Weights& w = weights_[l];
    const uint64_t gemm = std::max<uint64_t>(act / 4, 4096), norm = 16384;
    w.ln1 = allocator_.allocate(p + "input_layernorm.weight", norm, kCompute);
    w.qkv = allocator_.allocate(p + "linear_qkv.weight", gemm, kCompute);
    w.proj = allocator_.allocate(p + "linear_proj.weight", gemm, kCompute);
    w.ln2 = allocator_.allocate(p + "pre_mlp_layernorm.weight", norm, kCompute);
    w.fc1 = allocator_.allocate(p + "linear_fc1.weight", gemm, kCompute);
    w.fc2 = allocator_.allocate(p + "linear_fc2.weight", gemm, kCompute);
    w.grad_ln1 = allocator_.allocate(p + "input_layernorm.weight.grad", norm, kCompute);
    w.grad_qkv = allocator_.allocate(p + "linear_qkv.weight.grad", gemm, kCompute);
    w.grad_proj = allocator_.allocate(p + "linear_proj.weight.grad", gemm, kCompute);
    w.grad_ln2 = allocator_.allocate(p + "pre_mlp_layernorm.weight.grad", norm, kCompute);
    w.grad_fc1 = allocator_.allocate(p + "linear_fc1.weight.grad", gemm, kCompute);
    w.grad_fc2 = allocator_.allocate(p + "linear_fc2.weight.grad", gemm, kCompute);
  }
  embedding_ = allocator_.allocate("embedding.weight", std::max<uint64_t>(act / 2, 4096), kCompute);
  loss_ = allocator_.allocate("loss", 512, kCompute);
  grad_norm_ = allocator_.allocate("grad_norm", 512, kCompute);
  loss_host_ = e_.driver_alloc("loss.item staging", 512, v1::SPACE_PINNED_HOST);
  setup_input();
  compute_to_offload_ = e_.new_event("compute_to_offload");
  compute_to_reload_ = e_.new_event("compute_to_reload");
  helper_done_ = e_.new_event("reload_helper_done");
  compute_to_capture_ = e_.new_event("compute_to_graph_capture");
  capture_fork_ = e_.new_event("graph_capture_fork");
  checkpoint_ready_ = e_.new_event("checkpoint_ready");
  checkpoint_done_ = e_.new_event("checkpoint_done");
  state_.assign(options_.microbatches, std::vector<LayerState>(options_.layers));
  for (uint32_t mb = 0; mb < options_.microbatches; ++mb)
    for (uint32_t l = 0; l < options_.layers; ++l)
      for (int g = 0; g < kGroups; ++g) {
        Group& grp = state_[mb][l].groups[g];
        const std::string name = where(mb, l, g);
        grp.offload_event = e_.new_event("offload " + name);
        grp.reload_event = e_.new_event("reload " + name);
      }
  grad_out_.resize(options_.microbatches);
  forward_done_.assign(options_.microbatches, false);
  setup_collectives();
}

std::string TrainingLoop::where(uint32_t mb, uint32_t layer, int g) const {
  return "microbatch " + std::to_string(mb) + ", layer " + std::to_string(layer) + ", " + kGroupNames[g];
}

uint64_t TrainingLoop::sites_per_iteration() const {
  return 2ull * kGroups * options_.layers * options_.microbatches;
}

bool TrainingLoop::take(HazardShape shape) {
  if (iteration_ == 0 || e_.watching(shape)) return false;
  for (auto it = requests_.begin(); it != requests_.end(); ++it)
    if (it->shape == shape && it->not_before_site <= site_) {
      requests_.erase(it);
      return true;
    }
  return false;
}

void TrainingLoop::requeue_masked() {
  const auto masked = e_.take_masked();
  for (int s = 0; s < kHazardShapeCount; ++s)
    for (uint32_t n = 0; n < masked[s]; ++n) {
      if (retries_left_[s] == 0) continue;
      --retries_left_[s];
      requests_.push_back(InjectionRequest{static_cast<HazardShape>(s), site_ + 1, 0});
    }
}

std::array<uint32_t, kHazardShapeCount> TrainingLoop::unplaced() const {
  std::array<uint32_t, kHazardShapeCount> out{};
  for (const auto& r : requests_) ++out[static_cast<int>(r.shape)];
  if (stale_capture_) ++out[static_cast<int>(HazardShape::kC16)];  // no replay came after the free
  return out;
}

// Megatron's group commit: compute -> offload join, D2H into a pinned buffer,
// the group's offload event, and the forced release of the GPU copy after
// record_stream(offload).
void TrainingLoop::offload(uint32_t mb, uint32_t layer, int g, const Tensor& saved, OpMark produced) {
  ++site_;
  Group& grp = state_[mb][layer].groups[g];
  const std::string at = "iteration " + std::to_string(iteration_) + ", " + where(mb, layer, g);
  e_.range_push(std::string("offload.") + kGroupNames[g]);
  const bool c6 = take(HazardShape::kC6);  // C6: d2h.wait_stream(compute) forgotten
  if (!c6) {
    e_.record(compute_to_offload_, kCompute);
    e_.wait(kOffload, compute_to_offload_);
  }
  grp.pinned = pinned_.take(saved.size, kOffload);
  if (c6) e_.watch(HazardShape::kC6, produced, saved, true, at);
  e_.copy(kOffload, grp.pinned, saved);
  // C1 happens to the group the backward needs first: it is reloaded inline
  // on the compute stream, never prefetched.
  const bool first_in_backward = layer + 1 == options_.layers && g == kGroups - 1;
  Release release = Release::kRecordStream;
  if (c6) {
    // one injection per offload
  } else if (first_in_backward && take(HazardShape::kC1)) {
    grp.inline_reload = true;
    e_.watch_last(HazardShape::kC1, grp.pinned, true, at);
  } else if (take(HazardShape::kC2)) {
    release = Release::kNoRecordStream;
    e_.watch_last(HazardShape::kC2, saved, false, at);
  } else if (last_reload_event_ && take(HazardShape::kC11)) {
    release = Release::kJoinElsewhere;
    e_.watch_last(HazardShape::kC11, saved, false, at);
  }
  e_.record(grp.offload_event, kOffload);
  release_offloaded(saved, release);
  e_.range_pop();
}

// Megatron's bulk_reload_group on the reload stream.
void TrainingLoop::prefetch(uint32_t mb, uint32_t layer, int g, bool before_forward) {
  Group& grp = state_[mb][layer].groups[g];
  if (grp.prefetched || grp.inline_reload) return;
  e_.range_push(std::string("reload.") + kGroupNames[g]);
  if (skip_next_reload_join_) {
    skip_next_reload_join_ = false;  // C4: h2d_stream.wait_stream(compute) forgotten
  } else {
    e_.record(compute_to_reload_, kCompute);
    e_.wait(kReload, compute_to_reload_);
  }
  e_.wait(kReload, grp.offload_event);
  if (helper_pending_) {
    e_.wait(kReload, helper_done_);  // C10's helper, before the block is reused
    helper_pending_ = false;
  }
  const std::string at = "iteration " + std::to_string(iteration_) + ", " + where(mb, layer, g);
  grp.reloaded = alloc(std::string(kGroupNames[g]) + ".reloaded", mb, layer, grp.pinned.size, kReload);
  const std::optional<HazardShape> changed = reload_copy(grp, at);
  bool c3 = false;
  if (changed) {
    // one injection per reload
  } else if (take(HazardShape::kC5)) {
    grp.skip_consumer_wait = true;
    e_.watch_last(HazardShape::kC5, grp.reloaded, true, at);
  } else if (before_forward && take(HazardShape::kC3)) {
    c3 = true;
    e_.watch_last(HazardShape::kC3, grp.pinned, false, at);
  }
  record_reload_event(grp);
  last_reload_event_ = grp.reload_event;
  if (c3)
    pinned_.give_back_now(grp.pinned);  // C3: pool reuses it before the H2D is done
  else
    pinned_.give_back(grp.pinned, kReload);
  grp.prefetched = true;
  e_.range_pop();
}

Tensor& TrainingLoop::reloaded(uint32_t mb, uint32_t layer, int g) {
  ++site_;
  Group& grp = state_[mb][layer].groups[g];
  if (grp.inline_reload) {
    // Megatron #7398: tensor_pop reloads on the compute stream without
    // waiting for the group's offload event.
    grp.reloaded = alloc(std::string(kGroupNames[g]) + ".reloaded", mb, layer, grp.pinned.size, kCompute);
    e_.copy(kCompute, grp.reloaded, grp.pinned);
    pinned_.give_back(grp.pinned, kCompute);
  } else {
    prefetch(mb, layer, g);
    if (!grp.skip_consumer_wait) e_.wait(kCompute, grp.reload_event);  // C5 skips it
  }
  return grp.reloaded;
}

void TrainingLoop::after_last_read(uint32_t mb, uint32_t layer, int g) {
  // C4: the next reload skips h2d_stream.wait_stream(compute), so its block
  // (this one, freed next) may be overwritten while this read still runs.
  if (!take(HazardShape::kC4)) return;
  e_.watch_last(HazardShape::kC4, state_[mb][layer].groups[g].reloaded, false,
                "iteration " + std::to_string(iteration_) + ", " + where(mb, layer, g));
  skip_next_reload_join_ = true;
}

void TrainingLoop::finish_group(uint32_t mb, uint32_t layer, int g) {
  Group& grp = state_[mb][layer].groups[g];
  // No record_stream(compute): safe because every later reload-stream
  // allocation follows h2d_stream.wait_stream(compute).
  allocator_.free(grp.reloaded);
  grp.prefetched = grp.inline_reload = grp.skip_consumer_wait = grp.event_on_wrong_stream = false;
  prefetch_after(mb, layer, g);
}

void TrainingLoop::prefetch_after(uint32_t mb, uint32_t layer, int g) {
  if (g == 1) return prefetch(mb, layer, 0);
  if (layer > 0) return prefetch(mb, layer - 1, 1);
  const uint32_t next = mb + 1;
  if (next < options_.microbatches && forward_done_[next]) {
    prefetch(next, options_.layers - 1, 1, forwards_run_ < options_.microbatches);
  }
}

void TrainingLoop::forward(uint32_t mb) {
  const uint64_t act = options_.activation_bytes;
  e_.range_push("forward");
  e_.range_push("microbatch" + std::to_string(mb));
  Tensor x = alloc("embedding.out", mb, 0, act, kCompute);
  e_.kernel(kCompute, kEmbedding, {&embedding_, &batch()}, {&x}, scaled(20000, act));
  after_embedding();
  for (uint32_t l = 0; l < options_.layers; ++l) {
    const Weights& w = weights_[l];
    LayerState& s = state_[mb][l];
    e_.range_push("layer" + std::to_string(l));
    s.x = x;
    Tensor n1 = alloc("input_layernorm.out", mb, l, act, kCompute);
    e_.kernel(kCompute, kLayerNorm, {&x, &w.ln1}, {&n1}, scaled(40000, act));
    Tensor qkv = alloc("linear_qkv.out", mb, l, act, kCompute);
    e_.kernel(kCompute, kGemm, {&n1, &w.qkv}, {&qkv}, scaled(180000, act));
    const OpMark qkv_written = e_.mark();
    allocator_.free(n1);  // recomputed in backward
    s.ctx = alloc("core_attention.out", mb, l, act, kCompute);
    e_.kernel(kCompute, kFlashFwd, {&qkv}, {&s.ctx}, scaled(400000, act));
    offload(mb, l, 0, qkv, qkv_written);
    // Both outputs first: the add follows the GEMM directly on the stream,
    // as a PDL secondary must (C15).
    Tensor proj = alloc("linear_proj.out", mb, l, act, kCompute);
    s.h = alloc("attention.residual", mb, l, act, kCompute);
    e_.kernel(kCompute, kGemm, {&s.ctx, &w.proj}, {&proj}, scaled(150000, act));
    const OpMark proj_written = e_.mark();
    attention_residual(proj, proj_written, x, s.h,
                       "iteration " + std::to_string(iteration_) + ", microbatch " + std::to_string(mb) +
                           ", layer " + std::to_string(l) + ", attention residual");
    allocator_.free(proj);
    Tensor n2 = alloc("pre_mlp_layernorm.out", mb, l, act, kCompute);
    e_.kernel(kCompute, kLayerNorm, {&s.h, &w.ln2}, {&n2}, scaled(40000, act));
    const OpMark n2_written = e_.mark();
    s.f1 = alloc("linear_fc1.out", mb, l, act, kCompute);
    e_.kernel(kCompute, kGemm, {&n2, &w.fc1}, {&s.f1}, scaled(300000, act));
    offload(mb, l, 1, n2, n2_written);
    Tensor a = alloc("activation.out", mb, l, act, kCompute);
    e_.kernel(kCompute, kGelu, {&s.f1}, {&a}, scaled(30000, act));
    Tensor f2 = alloc("linear_fc2.out", mb, l, act, kCompute);
    e_.kernel(kCompute, kGemm, {&a, &w.fc2}, {&f2}, scaled(300000, act));
    allocator_.free(a);  // recomputed in backward
    Tensor out = alloc("mlp.residual", mb, l, act, kCompute);
    e_.kernel(kCompute, kAdd, {&f2, &s.h}, {&out}, scaled(25000, act));
    allocator_.free(f2);
    x = out;
    e_.range_pop();
  }
  grad_out_[mb] = alloc("loss.grad", mb, options_.layers, act, kCompute);
  e_.kernel(kCompute, kLoss, {&x}, {&loss_, &grad_out_[mb]}, scaled(50000, act));
  allocator_.free(x);
  forward_done_[mb] = true;
  ++forwards_run_;
  e_.range_pop();
  e_.range_pop();
}

void TrainingLoop::backward(uint32_t mb) {
  const uint64_t act = options_.activation_bytes;
  e_.range_push("backward");
  e_.range_push("microbatch" + std::to_string(mb));
  Tensor g = grad_out_[mb];
  for (uint32_t l = options_.layers; l-- > 0;) {
    const Weights& w = weights_[l];
    LayerState& s = state_[mb][l];
    e_.range_push("layer" + std::to_string(l));
    // fc2, with the activation recomputed.
    Tensor a = alloc("activation.recompute", mb, l, act, kCompute);
    e_.kernel(kCompute, kGelu, {&s.f1}, {&a}, scaled(30000, act));
    Tensor ga = alloc("linear_fc2.dgrad", mb, l, act, kCompute);
    e_.kernel(kCompute, kGemmDgrad, {&g, &w.fc2}, {&ga}, scaled(300000, act));
    e_.kernel(kCompute, kGemmWgrad, {&g, &a}, {&w.grad_fc2}, scaled(300000, act));
    allocator_.free(a);
    Tensor gf1 = alloc("activation.grad", mb, l, act, kCompute);
    e_.kernel(kCompute, kGeluGrad, {&ga, &s.f1}, {&gf1}, scaled(30000, act));
    allocator_.free(ga);
    allocator_.free(s.f1);
    // fc1: its input comes back from host memory.
    Tensor& r1 = reloaded(mb, l, 1);
    Tensor gn2 = alloc("linear_fc1.dgrad", mb, l, act, kCompute);
    e_.kernel(kCompute, kGemmDgrad, {&gf1, &w.fc1}, {&gn2}, scaled(300000, act));
    e_.kernel(kCompute, kGemmWgrad, {&gf1, &r1}, {&w.grad_fc1}, scaled(300000, act));
    after_last_read(mb, l, 1);
    allocator_.free(gf1);
    finish_group(mb, l, 1);
    // Pre-MLP norm and the residual.
    Tensor gh = alloc("pre_mlp_layernorm.grad", mb, l, act, kCompute);
    e_.kernel(kCompute, kLayerNormGrad, {&gn2, &s.h, &w.ln2}, {&gh, &w.grad_ln2}, scaled(60000, act));
    allocator_.free(gn2);
    e_.kernel(kCompute, kAdd, {&gh, &g}, {&gh}, scaled(25000, act));
    allocator_.free(g);
    allocator_.free(s.h);
    // Attention output projection.
    Tensor gctx = alloc("linear_proj.dgrad", mb, l, act, kCompute);
    e_.kernel(kCompute, kGemmDgrad, {&gh, &w.proj}, {&gctx}, scaled(150000, act));
    e_.kernel(kCompute, kGemmWgrad, {&gh, &s.ctx}, {&w.grad_proj}, scaled(150000, act));
    allocator_.free(s.ctx);
    // Core attention: its input (qkv) comes back from host memory.
    Tensor& r0 = reloaded(mb, l, 0);
    Tensor gqkv = alloc("core_attention.grad", mb, l, act, kCompute);
    e_.kernel(kCompute, kFlashBwd, {&gctx, &r0}, {&gqkv}, scaled(900000, act));
    after_last_read(mb, l, 0);
    allocator_.free(gctx);
    finish_group(mb, l, 0);
    // QKV, with the input norm recomputed.
    Tensor n1 = alloc("input_layernorm.recompute", mb, l, act, kCompute);
    e_.kernel(kCompute, kLayerNorm, {&s.x, &w.ln1}, {&n1}, scaled(40000, act));
    Tensor gn1 = alloc("linear_qkv.dgrad", mb, l, act, kCompute);
    e_.kernel(kCompute, kGemmDgrad, {&gqkv, &w.qkv}, {&gn1}, scaled(180000, act));
    e_.kernel(kCompute, kGemmWgrad, {&gqkv, &n1}, {&w.grad_qkv}, scaled(180000, act));
    allocator_.free(n1);
    allocator_.free(gqkv);
    Tensor gx = alloc("input_layernorm.grad", mb, l, act, kCompute);
    e_.kernel(kCompute, kLayerNormGrad, {&gn1, &s.x, &w.ln1}, {&gx, &w.grad_ln1}, scaled(60000, act));
    allocator_.free(gn1);
    e_.kernel(kCompute, kAdd, {&gx, &gh}, {&gx}, scaled(25000, act));
    allocator_.free(gh);
    allocator_.free(s.x);
    g = gx;
    e_.range_pop();
    if (mb + 1 == options_.microbatches) reduce_layer_gradients(l);
  }
  allocator_.free(g);
  forward_done_[mb] = false;
  e_.range_pop();
  e_.range_pop();
  requeue_masked();
}

void TrainingLoop::optimizer_step() {
  e_.range_push("optimizer");
  wait_for_gradients();
  adam_step();
  loss_item();
  log_loss();
  e_.range_pop();
}

void TrainingLoop::iteration(uint64_t i) {
  iteration_ = i;
  forwards_run_ = 0;
  e_.set_iteration(i);
  start_checkpoint();
  join_checkpoint();
  gather_parameters();
  wait_for_batch();
  const uint32_t m = options_.microbatches;
  if (options_.schedule == Schedule::kSequential) {
    for (uint32_t mb = 0; mb < m; ++mb) {
      forward(mb);
      backward(mb);
    }
  } else {
    const uint32_t warmup = std::min<uint32_t>(m - 1, 2);
    for (uint32_t mb = 0; mb < warmup; ++mb) forward(mb);
    for (uint32_t mb = 0; mb < m; ++mb) {
      if (mb + warmup < m) forward(mb + warmup);
      backward(mb);
    }
  }
  optimizer_step();
  e_.expire_watches();
  requeue_masked();
}

}  // namespace racetrack::synth
