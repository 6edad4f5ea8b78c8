#include "emitter.h"

#include <algorithm>

#include "kernels.h"
#include "racetrack/traces/sha256.h"

namespace racetrack::synth {
namespace {

// Modelled host cost of API calls, in ns.
constexpr int64_t kLaunchCost = 4000;
constexpr int64_t kCopyCost = 6000;
constexpr int64_t kEventCost = 1500;
constexpr int64_t kQueryCost = 800;
constexpr int64_t kAllocatorCost = 300;  // caching allocator bookkeeping, no CUDA call
constexpr int64_t kDriverAllocCost = 400000;
constexpr double kCopyBytesPerNs = 25.0;  // ~25 GB/s over PCIe
constexpr int64_t kCopyLatency = 3000;

const char* kind_of(bool first_writes, bool second_writes) {
  if (first_writes && second_writes) return "WAW";
  return first_writes ? "RAW" : "WAR";
}

}  // namespace

Emitter::Emitter(TraceBuilder& builder, const SynthOptions& options, uint64_t seed)
    : builder_(builder),
      options_(options),
      rng_(seed),
      timing_(kStreamCount),
      order_(kStreamCount),
      last_kernel_(kStreamCount + 1) {
  // Known modes store the analysis only for C15's PDL secondary, and only
  // with the analyzer version check reads it under.
  const bool pdl_facts = options_.known_modes && options_.analyzer_version &&
                         options_.inject[static_cast<int>(HazardShape::kC15)];
  if (options_.code_modes || pdl_facts) add_code_module();
}

// One module without an image whose stored analysis is what the machine-
// code analysis reports for these kernels: each read pointer word read,
// each written one written, the scalars no pointers. Named by the hash of
// that description, as a module is by its image.
void Emitter::add_code_module() {
  std::vector<v1::FunctionCode> functions;
  std::string description = "racetrack synth kernels, analyzer " + std::to_string(options_.analyzer_version);
  for (const kernels::Signature& s : kernels::kSignatures) {
    v1::FunctionCode& f = functions.emplace_back();
    f.set_name(builder_.intern(s.name));
    f.set_analyzer_version(options_.analyzer_version);
    for (uint32_t i = 0; i < s.reads; ++i) f.add_words(v1::WORD_READ);
    for (uint32_t i = 0; i < s.writes; ++i) f.add_words(v1::WORD_WRITE);
    for (uint32_t i = 0; i < kernels::kScalarWords; ++i) f.add_words(v1::WORD_NONE);
    description += "\n" + std::string(s.name) + " reads " + std::to_string(s.reads) + " writes " +
                   std::to_string(s.writes) + " scalars " + std::to_string(kernels::kScalarWords);
  }
  module_ =
      builder_.module("synth", "", Sha256::hex(description.data(), description.size()), std::move(functions));
}

uint32_t Emitter::new_event(std::string_view name) {
  return builder_.event(name).id;
}

void Emitter::set_device_time(v1::Op& op, uint32_t stream, int64_t duration, Engine engine) {
  op.set_host_end(timing_.host_now());
  const auto [start, end] = timing_.device_op(stream, std::max<int64_t>(duration, 1000), engine);
  op.set_device_start(start);
  op.set_device_end(end);
}

void Emitter::kernel(uint32_t stream, std::string_view name, const std::vector<const Tensor*>& reads,
                     const std::vector<const Tensor*>& writes, int64_t duration, Launch launch) {
  const auto [start, end] = timing_.host_call(rng_.jitter(kLaunchCost, 0.2));
  builder_.set_clock(start);
  std::vector<Span> r, w;
  std::vector<Access> accesses;
  for (const Tensor* t : reads) {
    r.push_back(t->span());
    accesses.push_back({t->address, t->address + t->size, false});
  }
  for (const Tensor* t : writes) {
    w.push_back(t->span());
    accesses.push_back({t->address, t->address + t->size, true});
  }
  KernelOptions options;
  options.raw_words_only = !options_.known_modes;
  // Realistic non-pointer words: element counts and a launch flag.
  options.scalars = {(writes.empty() ? 0 : writes.front()->size / 2), 1};
  builder_.kernel(StreamId{stream}, name, r, w, options);
  v1::Op& op = builder_.last_op();
  if (launch.pdl_without_wait) {
    // The kernels' module says this one has no grid-dependency wait.
    op.mutable_kernel()->set_programmatic_stream_serialization(true);
    if (module_) op.mutable_kernel()->set_module(module_);
  }
  if (module_ && options_.code_modes) {
    op.mutable_kernel()->set_module(module_);
    const kernels::Signature* s = kernels::signature_of(name);
    if (layout_error_.empty() && (!s || s->reads != reads.size() || s->writes != writes.size() ||
                                  options.scalars.size() != kernels::kScalarWords))
      layout_error_ = "kernel " + std::string(name) + " launched with " + std::to_string(reads.size()) +
                      " read and " + std::to_string(writes.size()) + " written pointer(s), which its " +
                      (s ? "signature does not say" : "missing signature cannot say");
  }
  op.set_host_end(end);
  if (capturing_ && (stream == capturing_ || stream == forked_))
    return capture_node(op.kernel(), accesses, rng_.jitter(duration, 0.1));
  const std::optional<OrderTracker::Point> primary =
      launch.pdl_without_wait ? last_kernel_[stream] : std::nullopt;
  last_point_ = order_.device_op(stream);
  set_device_time(op, stream, rng_.jitter(duration, 0.1), Engine::kNone);
  check_watches(stream, accesses, primary);
  last_kernel_[stream] = last_point_;
}

v1::Op& Emitter::new_op(uint32_t stream) {
  builder_.mark("synth");  // an op with the builder's seq, thread, clock and range
  v1::Op& op = builder_.last_op();
  op.clear_what();
  op.set_stream(stream);
  return op;
}

void Emitter::capture_node(const v1::Kernel& kernel, const std::vector<Access>& accesses, int64_t duration) {
  // A launch names the graph's addresses, not the regions they had then.
  v1::Kernel& node = captured_.nodes.emplace_back(kernel);
  for (size_t k = 0; k < static_cast<size_t>(node.accesses_size()) && k < accesses.size(); ++k) {
    v1::Access& a = *node.mutable_accesses(static_cast<int>(k));
    a.clear_region();
    a.clear_offset();
    a.set_address(accesses[k].lo);
  }
  captured_.accesses.insert(captured_.accesses.end(), accesses.begin(), accesses.end());
  captured_.duration += duration;
}

void Emitter::begin_capture(uint32_t stream) {
  const auto [start, end] = timing_.host_call(rng_.jitter(kEventCost, 0.2));
  builder_.set_clock(start);
  new_op(stream).mutable_capture()->set_phase(v1::CAPTURE_BEGIN);
  builder_.last_op().set_host_end(end);
  order_.host_op();
  capturing_ = stream;
  captured_ = CapturedGraph{};
}

void Emitter::fork_into_capture(uint32_t side, uint32_t event) {
  record(event, capturing_);
  wait(side, event);
  forked_ = side;
}

Emitter::CapturedGraph Emitter::end_capture() {
  const auto [start, end] = timing_.host_call(rng_.jitter(kEventCost, 0.2));
  builder_.set_clock(start);
  v1::GraphCapture& capture = *new_op(capturing_).mutable_capture();
  capture.set_phase(v1::CAPTURE_END);
  capture.set_graph_id(++graphs_);
  builder_.last_op().set_host_end(end);
  order_.host_op();
  capturing_ = forked_ = 0;
  captured_.graph_id = graphs_;
  captured_.captured_seq = builder_.last_op().seq();
  return std::move(captured_);
}

void Emitter::launch_graph(uint32_t stream, const CapturedGraph& graph) {
  const auto [start, end] = timing_.host_call(rng_.jitter(kLaunchCost, 0.2));
  builder_.set_clock(start);
  v1::GraphLaunch& launch = *new_op(stream).mutable_graph();
  launch.set_graph_id(graph.graph_id);
  launch.set_captured_seq(graph.captured_seq);
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    v1::GraphNode& node = *launch.add_nodes();
    node.set_index(static_cast<uint32_t>(k));
    *node.mutable_kernel() = graph.nodes[k];
    if (k) node.add_deps(static_cast<uint32_t>(k - 1));  // captured on one stream: a chain
  }
  v1::Op& op = builder_.last_op();
  op.set_host_end(end);
  last_point_ = order_.device_op(stream);
  set_device_time(op, stream, graph.duration, Engine::kNone);
  check_watches(stream, graph.accesses);
  last_kernel_[stream].reset();
}

void Emitter::external_access(std::string_view agent, const Tensor& t, bool write, uint32_t done_event) {
  const auto [start, end] = timing_.host_call(rng_.jitter(kEventCost, 0.2));
  builder_.set_clock(start);
  v1::Annotation& note = *new_op(0).mutable_annotation();
  note.set_kind(v1::ANNOTATE_EXTERNAL_ACCESS);
  note.set_agent(builder_.intern(agent));
  note.set_done_event(done_event);
  v1::Access& a = *note.mutable_access();
  if (t.region) {
    a.set_region(t.region);
    a.set_offset(t.offset);
  } else {
    a.set_address(t.address);
  }
  a.set_size(t.size);
  a.set_mode(write ? v1::MODE_WRITE : v1::MODE_READ);
  a.set_precision(v1::PRECISION_EXACT);
  builder_.last_op().set_host_end(end);
  order_.host_op();
}

void Emitter::copy(uint32_t stream, const Tensor& dst, const Tensor& src) {
  const auto [start, end] = timing_.host_call(rng_.jitter(kCopyCost, 0.2));
  builder_.set_clock(start);
  builder_.memcpy(StreamId{stream}, dst.span(), src.span());
  v1::Op& op = builder_.last_op();
  op.set_host_end(end);
  last_point_ = order_.device_op(stream);
  const uint64_t bytes = std::min(dst.size, src.size);
  const Engine engine = dst.space == v1::SPACE_DEVICE ? Engine::kH2D : Engine::kD2H;
  set_device_time(op, stream,
                  kCopyLatency + static_cast<int64_t>(static_cast<double>(bytes) / kCopyBytesPerNs), engine);
  check_watches(stream,
                {{src.address, src.address + bytes, false}, {dst.address, dst.address + bytes, true}});
  last_kernel_[stream].reset();
}

void Emitter::memset(uint32_t stream, const Tensor& dst) {
  const auto [start, end] = timing_.host_call(rng_.jitter(kLaunchCost, 0.2));
  builder_.set_clock(start);
  builder_.memset(StreamId{stream}, dst.span());
  v1::Op& op = builder_.last_op();
  op.set_host_end(end);
  last_point_ = order_.device_op(stream);
  set_device_time(op, stream, kCopyLatency + static_cast<int64_t>(static_cast<double>(dst.size) / 1000.0),
                  Engine::kNone);
  check_watches(stream, {{dst.address, dst.address + dst.size, true}});
  last_kernel_[stream].reset();
}

void Emitter::record(uint32_t event, uint32_t stream) {
  const auto [start, end] = timing_.host_call(rng_.jitter(kEventCost, 0.2));
  builder_.set_clock(start);
  builder_.record(EventId{event}, StreamId{stream});
  builder_.last_op().set_host_end(end);
  order_.record(event, stream);
  timing_.record(event, stream);
  last_kernel_[stream].reset();
}

void Emitter::wait(uint32_t stream, uint32_t event) {
  const auto [start, end] = timing_.host_call(rng_.jitter(kEventCost, 0.2));
  builder_.set_clock(start);
  builder_.wait(StreamId{stream}, EventId{event});
  builder_.last_op().set_host_end(end);
  order_.wait(stream, event);
  timing_.wait(stream, event);
  last_kernel_[stream].reset();
}

bool Emitter::query(uint32_t event) {
  const auto [start, end] = timing_.host_call(rng_.jitter(kQueryCost, 0.2));
  const bool ready = timing_.event_done(event);
  builder_.set_clock(start);
  builder_.query(EventId{event}, ready);
  builder_.last_op().set_host_end(end);
  order_.host_op();
  if (ready) order_.join_event(event);
  return ready;
}

void Emitter::sync_stream(uint32_t stream) {
  builder_.set_clock(timing_.host_call(kEventCost).first);
  builder_.sync(StreamId{stream});
  timing_.host_wait_stream(stream);
  builder_.last_op().set_host_end(timing_.host_now());
  order_.host_op();
  order_.join_stream(stream);
  last_kernel_[stream].reset();  // the host saw it: no PDL overlap across a sync
}

void Emitter::sync_event(uint32_t event) {
  builder_.set_clock(timing_.host_call(kEventCost).first);
  builder_.sync_event(EventId{event});
  timing_.host_wait_event(event);
  builder_.last_op().set_host_end(timing_.host_now());
  order_.host_op();
  order_.join_event(event);
}

void Emitter::host_read(const Tensor& t) {
  const auto [start, end] = timing_.host_call(2000);
  builder_.set_clock(start);
  builder_.host_read(t.span());
  builder_.last_op().set_host_end(end);
  order_.host_op();
  check_watches(0, {{t.address, t.address + t.size, false}});
}

void Emitter::host_write(const Tensor& t) {
  const auto [start, end] = timing_.host_call(2000);
  builder_.set_clock(start);
  builder_.host_write(t.span());
  builder_.last_op().set_host_end(end);
  order_.host_op();
  check_watches(0, {{t.address, t.address + t.size, true}});
}

Tensor Emitter::driver_alloc(std::string_view label, uint64_t size, v1::AddressSpace space) {
  builder_.set_clock(timing_.host_call(kDriverAllocCost).first);
  const v1::RegionOrigin origin = space == v1::SPACE_DEVICE ? v1::ORIGIN_CUDA_MALLOC : v1::ORIGIN_HOST_ALLOC;
  Buffer b = builder_.alloc(label, size, origin);
  // The driver synchronises the device: the host waits for all streams.
  timing_.host_wait_all();
  builder_.last_op().set_host_end(timing_.host_now());
  order_.host_op();
  order_.join_all();
  Tensor t;
  t.address = b.base;
  t.size = size;
  t.space = space;
  t.label = std::string(label);
  return t;
}

void Emitter::block_alloc(Tensor& t) {
  if (!options_.known_modes) return;
  const auto [start, end] = timing_.host_call(kAllocatorCost);
  builder_.set_clock(start);
  t.region =
      builder_.alloc_at(t.label, t.size, v1::ORIGIN_FRAMEWORK_BLOCK, StreamId{t.stream}, t.address).region;
  builder_.last_op().set_host_end(end);
  order_.host_op();
}

void Emitter::block_free(const Tensor& t, uint32_t stream) {
  if (!options_.known_modes) return;
  const auto [start, end] = timing_.host_call(kAllocatorCost);
  builder_.set_clock(start);
  builder_.free(Buffer{t.region, t.address, t.size, t.space}, StreamId{stream});
  builder_.last_op().set_host_end(end);
  order_.host_op();
}

void Emitter::watch_last(HazardShape shape, const Tensor& t, bool write, std::string where) {
  watch(shape, mark(), t, write, std::move(where));
}

OpMark Emitter::mark() const {
  return OpMark{builder_.op_count(), last_point_};
}

void Emitter::watch(HazardShape shape, OpMark from, const Tensor& t, bool write, std::string where) {
  watches_.push_back(
      Watch{shape, from.seq, from.point, t.address, t.address + t.size, write, t.space, std::move(where)});
}

void Emitter::watch_external(HazardShape shape, OpMark from, const Tensor& t, bool write, std::string where) {
  watch(shape, from, t, write, std::move(where));
  watches_.back().external = true;
}

bool Emitter::watching(HazardShape shape) const {
  return std::any_of(watches_.begin(), watches_.end(), [&](const Watch& w) { return w.shape == shape; });
}

void Emitter::check_watches(uint32_t agent, const std::vector<Access>& accesses,
                            std::optional<OrderTracker::Point> overlapped) {
  if (watches_.empty()) return;
  const uint64_t seq = builder_.last_op().seq();
  for (auto it = watches_.begin(); it != watches_.end();) {
    const Access* hit = nullptr;
    for (const Access& a : accesses)
      if (a.lo < it->hi && it->lo < a.hi && (a.write || it->write) && seq != it->seq) hit = &a;
    if (!hit) {
      ++it;
      continue;
    }
    const bool overlaps =
        overlapped && overlapped->agent == it->point.agent && overlapped->tick == it->point.tick;
    if (!it->external && order_.ordered(it->point, agent) && !overlaps)
      ++masked_[static_cast<int>(it->shape)];
    else
      add_injected(*it, seq, *hit);
    it = watches_.erase(it);
  }
}

void Emitter::add_injected(const Watch& w, uint64_t seq, const Access& hit) {
  InjectedHazard h;
  h.shape = w.shape;
  h.first_seq = w.seq;
  h.second_seq = seq;
  h.kind = kind_of(w.write, hit.write);
  h.space = w.space;
  h.address = std::max(w.lo, hit.lo);
  h.bytes = std::min(w.hi, hit.hi) - h.address;
  h.iteration = iteration_;
  h.where = w.where;
  result_.injected.push_back(std::move(h));
}

void Emitter::expire_watches() {
  for (const Watch& w : watches_) ++masked_[static_cast<int>(w.shape)];
  watches_.clear();
}

std::array<uint32_t, kHazardShapeCount> Emitter::take_masked() {
  auto masked = masked_;
  masked_ = {};
  return masked;
}

}  // namespace racetrack::synth
