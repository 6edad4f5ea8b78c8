// The modelled training loop: L transformer layers x M microbatches per
// iteration, forward then backward in sequential or 1F1B order, with the
// saved inputs of core_attn and fc1 offloaded (D2H on the offload stream,
// prefetched back one group ahead on the reload stream) and the norms and the
// activation recomputed in backward. Each injection replaces one step of
// the correct protocol with the known bug (docs/synth.md); the shapes beyond
// C1-C5 live in files of their own, one per family (offload_injections.cpp,
// reload_injections.cpp, host_injections.cpp, pdl_injection.cpp,
// graph_injections.cpp, external_agent_injection.cpp); the data-parallel
// collectives and their three shapes in collectives.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "allocators.h"
#include "emitter.h"

namespace racetrack::synth {

struct InjectionRequest {
  HazardShape shape;
  uint64_t not_before_site = 0;  // the first site (group visit) it may use
  uint32_t retries = 0;
};

class TrainingLoop {
 public:
  TrainingLoop(Emitter& emitter, const SynthOptions& options);

  // Runs iteration `i` (0 is the allocator warm-up, never injected).
  void iteration(uint64_t i);
  // Sites (offloaded-group visits) in one iteration, for placing injections.
  uint64_t sites_per_iteration() const;
  void request(InjectionRequest r) { requests_.push_back(r); }
  // Requests never placed (the trace ordered every attempt), per shape.
  std::array<uint32_t, kHazardShapeCount> unplaced() const;

 private:
  static constexpr int kGroups = 2;  // per layer: core_attn input, fc1 input

  struct Group {
    Tensor pinned;
    Tensor reloaded;
    uint32_t offload_event = 0;
    uint32_t reload_event = 0;
    bool prefetched = false;
    bool inline_reload = false;          // C1
    bool skip_consumer_wait = false;     // C5
    bool event_on_wrong_stream = false;  // C9
  };
  struct LayerState {
    Tensor x, ctx, h, f1;
    Group groups[kGroups];
  };
  struct Weights {
    Tensor ln1, qkv, proj, ln2, fc1, fc2;
    Tensor grad_qkv, grad_proj, grad_fc1, grad_fc2, grad_ln1, grad_ln2;
  };

  void setup();
  void forward(uint32_t mb);
  void backward(uint32_t mb);
  void optimizer_step();
  // The optimizer step as a CUDA graph (graph_injections.cpp): eager in the
  // warm-up iteration, then captured once and replayed; C16 frees a
  // gradient the graph captured.
  void adam(uint32_t stream);
  void adam_step();
  void capture_optimizer();
  void zero_grad_set_to_none();
  // C16_unjoined: a capture again, with the gradient norm on a side stream
  // that is never joined back.
  void capture_with_unjoined_side_stream();
  // The async checkpoint (external_agent_injection.cpp): storage DMA, an
  // agent outside CUDA streams, reads one layer's weight; compute waits for
  // its observed completion before the step (C14: it does not).
  void start_checkpoint();
  void join_checkpoint();
  // Data parallelism (collectives.cpp), with options.collectives():
  // FSDP's all-gather of the sharded embedding before the first lookup
  // (C6_allgather skips compute's wait on it); DeepSpeed's double-buffered
  // gradient bucket, filled on compute and all-reduced then copied out on
  // the communication stream after each layer of the last backward
  // (C12_bucket refills a slot without waiting for its last all-reduce);
  // the loss all-reduced for logging and copied to the host on a third
  // stream (C11_stash frees it after a join with the collective only).
  void setup_collectives();
  void gather_parameters();
  void reduce_layer_gradients(uint32_t layer);
  void wait_for_gradients();
  void log_loss();
  uint64_t logged_bytes() const;
  // loss.item(): the D2H into pinned staging, the sync (C8 leaves it out),
  // the host read.
  void loss_item();
  // The input pipeline (host_injections.cpp): the loader fills a pinned
  // staging buffer and copies each batch on the input stream into one of
  // two device slots of the application's own, prefetching the next batch
  // once the step's last lookup is queued.
  void setup_input();
  void wait_for_batch();  // compute waits for the current slot's copy
  void prefetch_next_batch();
  void copy_batch(uint32_t slot);
  // The current batch, read by every forward's embedding lookup.
  const Tensor& batch() const { return batch_slots_[slot_]; }
  // After each forward's lookup: after the step's last, the slot is free
  // and the next batch is prefetched.
  void after_embedding();
  // `produced`: the op that wrote `saved` (C6's first op).
  void offload(uint32_t mb, uint32_t layer, int g, const Tensor& saved, OpMark produced);
  // How the offloaded tensor is released after its D2H.
  enum class Release { kRecordStream, kNoRecordStream /* C2 */, kJoinElsewhere /* C11 */ };
  void release_offloaded(const Tensor& saved, Release how);
  // `before_forward`: a forward pass will run before the group's consumer
  // waits for it (1F1B's cross-microbatch prefetch), the only window in which
  // a pool can hand the pinned buffer to an offload too early (C3).
  void prefetch(uint32_t mb, uint32_t layer, int g, bool before_forward = false);
  // The reload's H2D into the group's new block, with the injections that
  // change it (C9, C10, C13); returns the shape whose watch it opened, if any.
  std::optional<HazardShape> reload_copy(Group& grp, const std::string& at);
  // Records the group's reload event, on the reload stream unless C9 moved it.
  void record_reload_event(const Group& grp);
  // The residual add after linear_proj (`proj_written`: the GEMM), launched
  // with PDL without its wait when C15 is placed here.
  void attention_residual(const Tensor& proj, OpMark proj_written, const Tensor& x, Tensor& out,
                          const std::string& at);
  // Reloads a group on the compute stream if it was not prefetched.
  Tensor& reloaded(uint32_t mb, uint32_t layer, int g);
  // Call right after the group's last kernel reading the reloaded tensor.
  void after_last_read(uint32_t mb, uint32_t layer, int g);
  // Frees the reloaded tensor and prefetches the next group.
  void finish_group(uint32_t mb, uint32_t layer, int g);
  void prefetch_after(uint32_t mb, uint32_t layer, int g);
  Tensor alloc(const std::string& what, uint32_t mb, uint32_t layer, uint64_t size, uint32_t stream);
  std::string where(uint32_t mb, uint32_t layer, int g) const;
  bool take(HazardShape shape);
  void requeue_masked();

  Emitter& e_;
  const SynthOptions& options_;
  CachingAllocator allocator_;
  PinnedPool pinned_;
  std::vector<Weights> weights_;
  std::vector<std::vector<LayerState>> state_;  // [microbatch][layer]
  std::vector<Tensor> grad_out_;                // per microbatch: gradient entering backward
  std::vector<bool> forward_done_;
  uint32_t forwards_run_ = 0;  // in this iteration
  Tensor embedding_, loss_, loss_host_;
  Tensor batch_host_, batch_slots_[2];
  uint32_t batch_ready_[2] = {}, slot_free_[2] = {}, staging_free_ = 0;
  uint32_t slot_ = 0;       // the slot this step reads
  uint32_t next_slot_ = 0;  // the slot the next batch went into
  OpMark last_lookup_;      // this step's last embedding lookup (C12)
  uint32_t compute_to_offload_ = 0, compute_to_reload_ = 0;
  uint32_t last_reload_event_ = 0;  // the reload event recorded last (C11's join)
  // C10's second copy stream records this after its half; the reload
  // stream, which owns the block, waits on it at its next reload.
  uint32_t helper_done_ = 0;
  bool helper_pending_ = false;
  uint64_t iteration_ = 0;
  uint64_t site_ = 0;
  bool skip_next_reload_join_ = false;  // C4
  Emitter::CapturedGraph optimizer_graph_;
  uint32_t compute_to_capture_ = 0, capture_fork_ = 0;
  Tensor grad_norm_;  // the clipping norm the side stream computes
  // C16's pair once its gradient is freed: the next replay closes it.
  std::optional<InjectedHazard> stale_capture_;
  uint32_t checkpoint_ready_ = 0, checkpoint_done_ = 0;
  bool checkpoint_unjoined_ = false;  // C14
  Tensor embedding_shard_, buckets_[2], loss_log_host_;
  uint32_t compute_to_comm_ = 0, gathered_ = 0, loss_reduced_ = 0;
  uint32_t bucket_free_[2] = {};          // recorded on comm after each slot's copy-out
  bool bucket_used_[2] = {}, skip_bucket_wait_[2] = {};  // C12_bucket
  std::vector<InjectionRequest> requests_;
  std::array<uint32_t, kHazardShapeCount> retries_left_{};
};

}  // namespace racetrack::synth
