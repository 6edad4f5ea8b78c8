// The generator's single point of output: every op goes through here, which
// writes it with the TraceBuilder, gives it host and device times from the
// timing model, tracks its ordering, and closes the ground-truth watches of
// injected hazards (the first later op that conflicts with an injected access
// becomes the pair's second op if the pair is really unordered).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "order_tracker.h"
#include "racetrack/traces/builder.h"
#include "racetrack/traces/synth.h"
#include "rng.h"
#include "timing_model.h"

namespace racetrack::synth {

// Streams by index; they are also the builder's stream ids.
inline constexpr uint32_t kCompute = 1, kOffload = 2, kReload = 3, kInput = 4, kCapture = 5, kCheckpoint = 6,
                          kGraphSide = 7, kComm = 8, kStreamCount = 8;

struct Tensor {
  uint64_t address = 0;
  uint64_t size = 0;
  uint32_t region = 0;  // framework block region (known modes), else 0
  uint64_t offset = 0;  // of `address` in the region (a part of a block)
  uint32_t stream = 0;  // allocation stream
  v1::AddressSpace space = v1::SPACE_DEVICE;
  std::string label;

  Span span() const { return Span{region, offset, address, size, space}; }
  // The bytes [from, from + bytes) of this tensor.
  Tensor part(uint64_t from, uint64_t bytes) const {
    Tensor t = *this;
    t.address += from;
    t.offset += from;
    t.size = bytes;
    return t;
  }
};

// An emitted op, for watches that start at an earlier op than the last.
struct OpMark {
  uint64_t seq = 0;
  OrderTracker::Point point;
};

// How a kernel is launched.
struct Launch {
  // With programmatic stream serialization (PDL), its code having no
  // grid-dependency wait (C15): it may overlap the kernel before it.
  bool pdl_without_wait = false;
};

class Emitter {
 public:
  struct Access {
    uint64_t lo, hi;
    bool write;
  };
  // A captured CUDA graph as its launches name it: the capture end's seq,
  // the nodes with their accesses by address (what the graph holds), what
  // they touch and how long they run.
  struct CapturedGraph {
    uint64_t graph_id = 0;
    uint64_t captured_seq = 0;
    std::vector<v1::Kernel> nodes;
    std::vector<Access> accesses;
    int64_t duration = 0;
  };

  Emitter(TraceBuilder& builder, const SynthOptions& options, uint64_t seed);

  TraceBuilder& builder() { return builder_; }
  Rng& rng() { return rng_; }
  bool known_modes() const { return options_.known_modes; }

  uint32_t new_event(std::string_view name);
  void kernel(uint32_t stream, std::string_view name, const std::vector<const Tensor*>& reads,
              const std::vector<const Tensor*>& writes, int64_t duration, Launch launch = {});
  void copy(uint32_t stream, const Tensor& dst, const Tensor& src);
  void memset(uint32_t stream, const Tensor& dst);
  void record(uint32_t event, uint32_t stream);
  void wait(uint32_t stream, uint32_t event);
  // Emits an event query with the result the timing model gives; a ready
  // query is a host join.
  bool query(uint32_t event);
  void sync_stream(uint32_t stream);
  void sync_event(uint32_t event);
  void host_read(const Tensor& t);
  void host_write(const Tensor& t);
  // Driver allocations (cudaMalloc / cudaHostAlloc): device-wide joins.
  Tensor driver_alloc(std::string_view label, uint64_t size, v1::AddressSpace space);
  // Caching-allocator block events (only visible with known modes).
  void block_alloc(Tensor& t);
  void block_free(const Tensor& t, uint32_t stream);
  // Stream capture (torch.cuda.graph): kernels between begin and end are
  // captured on `stream`, not run; launch_graph runs them.
  void begin_capture(uint32_t stream);
  // `side` waits on `event`, recorded in the capture: it is forked into it.
  void fork_into_capture(uint32_t side, uint32_t event);
  CapturedGraph end_capture();
  void launch_graph(uint32_t stream, const CapturedGraph& graph);
  // An agent outside CUDA streams (storage DMA) starts accessing `t`; it is
  // done before the next record of `done_event`.
  void external_access(std::string_view agent, const Tensor& t, bool write, uint32_t done_event);
  // Ground truth the caller works out itself (a pair whatever the order).
  void add_truth(InjectedHazard h) { result_.injected.push_back(std::move(h)); }
  void range_push(std::string_view name) { builder_.push_range(name); }
  void range_pop() { builder_.pop_range(); }

  // Ground truth: watch the last emitted op's access to `t`...
  void watch_last(HazardShape shape, const Tensor& t, bool write, std::string where);
  // ...or an earlier op's (`from` = mark() right after it): the next op
  // that conflicts with it closes the watch.
  OpMark mark() const;
  void watch(HazardShape shape, OpMark from, const Tensor& t, bool write, std::string where);
  // The same where the caller knows no later op is ordered after `from`
  // (an external agent's completion, which the tracker does not model).
  void watch_external(HazardShape shape, OpMark from, const Tensor& t, bool write, std::string where);
  // Closes watches still open (their pair never came) as masked.
  void expire_watches();
  // Injections whose pair turned out ordered since the last call, per shape:
  // the workload places them again elsewhere.
  std::array<uint32_t, kHazardShapeCount> take_masked();
  bool watching(HazardShape shape) const;
  void set_iteration(uint64_t i) { iteration_ = i; }

  SynthResult& result() { return result_; }
  // Whether a PDL secondary's stored analysis can go into the trace (the
  // kernels' module exists): C15 can be placed.
  bool can_launch_pdl() const { return module_ != 0; }
  // With code modes: the first kernel launched with another word layout
  // than its kernels::Signature (a generator bug), or "".
  const std::string& layout_error() const { return layout_error_; }

 private:
  struct Watch {
    HazardShape shape;
    uint64_t seq;
    OrderTracker::Point point;
    uint64_t lo, hi;
    bool write;
    v1::AddressSpace space;
    std::string where;
    bool external = false;
  };

  void add_code_module();
  // A new op of a kind the builder has no call for, on `stream` (0: host).
  v1::Op& new_op(uint32_t stream);
  void capture_node(const v1::Kernel& kernel, const std::vector<Access>& accesses, int64_t duration);
  void set_device_time(v1::Op& op, uint32_t stream, int64_t duration, Engine engine);
  // `overlapped`: the op just emitted may run alongside the op at that
  // point (a PDL secondary without its wait, and its primary).
  void check_watches(uint32_t agent, const std::vector<Access>& accesses,
                     std::optional<OrderTracker::Point> overlapped = {});
  void add_injected(const Watch& w, uint64_t seq, const Access& hit);

  TraceBuilder& builder_;
  const SynthOptions& options_;
  Rng rng_;
  TimingModel timing_;
  OrderTracker order_;
  OrderTracker::Point last_point_;
  // Per stream, the point of its last op if that op is a kernel (a PDL
  // secondary's primary), else none.
  std::vector<std::optional<OrderTracker::Point>> last_kernel_;
  std::vector<Watch> watches_;
  std::array<uint32_t, kHazardShapeCount> masked_{};
  uint64_t iteration_ = 0;
  SynthResult result_;
  // The kernels' module: with code modes every kernel names it; with known
  // modes only PDL launches do (their grid-dependency facts); 0: none.
  uint32_t module_ = 0;
  std::string layout_error_;
  // The open capture's stream (0: none) and what it has captured so far.
  uint32_t capturing_ = 0, forked_ = 0;
  CapturedGraph captured_;
  uint64_t graphs_ = 0;
};

}  // namespace racetrack::synth
