#include "racetrack/des/program.h"

#include <algorithm>

#include "captured_addresses.h"
#include "external_landings.h"
#include "racetrack/hb/happens_before.h"
#include "racetrack/race/pdl.h"
#include "racetrack/traces/describe.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::des {
namespace {

Resource resource_of(const v1::Op& op) {
  switch (op.what_case()) {
    case v1::Op::kKernel:
    case v1::Op::kGraph: return Resource::kKernel;
    case v1::Op::kMemset: return Resource::kCopyOther;
    case v1::Op::kMemcpy:
      switch (effective_direction(op.memcpy())) {
        case v1::COPY_H2D: return Resource::kCopyH2D;
        case v1::COPY_D2H: return Resource::kCopyD2H;
        default: return Resource::kCopyOther;
      }
    default: return Resource::kNone;
  }
}

int64_t modelled_device_ns(const v1::Op& op, const std::vector<race::ResolvedAccess>& accesses,
                           const CostModel& c) {
  auto over = [](double bytes, double per_ns) { return duration_ns(bytes / per_ns); };
  switch (op.what_case()) {
    case v1::Op::kMemcpy: {
      const double bytes = static_cast<double>(op.memcpy().bytes());
      const auto d = effective_direction(op.memcpy());
      const double bw = d == v1::COPY_H2D   ? c.h2d_bytes_per_ns
                        : d == v1::COPY_D2H ? c.d2h_bytes_per_ns
                                            : c.d2d_bytes_per_ns;
      return add_ns(c.copy_latency_ns, over(bytes, bw));
    }
    case v1::Op::kMemset:
      return add_ns(c.copy_latency_ns, over(static_cast<double>(op.memset().bytes()), c.d2d_bytes_per_ns));
    case v1::Op::kKernel:
    case v1::Op::kGraph: {
      double bytes = 0;
      for (const auto& a : accesses) bytes += static_cast<double>(a.hi - a.lo);
      const int64_t nodes = op.has_graph() ? std::max(1, op.graph().nodes_size()) : 1;
      return std::max(duration_ns(static_cast<double>(c.kernel_ns) * static_cast<double>(nodes)),
                      over(bytes, c.kernel_bytes_per_ns));
    }
    default: return 0;
  }
}

// Loads ops in order, turning each op's growth in happens-before (the
// entries of its clock that grew since the previous op of its thread or
// stream) into dependencies on the latest op of each agent it now covers.
class Loader {
 public:
  Loader(Program& p, const CostModel& costs, std::shared_ptr<race::CodeModeTable> code_modes,
         const hb::Assumptions& assumptions)
      : p_(p), costs_(costs), hb_(assumptions), resolver_({}, code_modes), pdl_facts_(std::move(code_modes)) {
    p_.tables->set_regions(RegionDetail::kNone);
    hb_.set_pdl_wait_lookup(pdl_facts_.lookup(*p_.tables));
  }

  void finish() { externals_.finish(resolver_, p_); }

  // Returns why the chunk cannot be simulated, or empty.
  std::string add_chunk(const v1::Chunk& chunk) {
    p_.tables->add(chunk);
    hb_.add_entities(chunk);
    resolver_.add_entities(chunk, *p_.tables);
    pdl_facts_.add_modules(chunk, *p_.tables);
    p_.threads.resize(p_.threads.size() + static_cast<size_t>(chunk.threads_size()));
    for (const v1::Op& op : chunk.ops()) {
      std::string why = hb_.cannot_apply(op);
      if (why.empty() && !p_.ops.empty() && op.seq() <= p_.ops.back().seq)
        why = "op seq " + std::to_string(op.seq()) + ": seq does not increase (previous op was seq " +
              std::to_string(p_.ops.back().seq) + ")";
      if (!why.empty()) return why + " (racetrack validate lists every problem)";
      add(op);
      if (!hb_.exceeded().empty()) return hb_.exceeded();
    }
    return {};
  }

 private:
  void add(const v1::Op& op) {
    const uint32_t index = static_cast<uint32_t>(p_.ops.size());
    const bool captured = graphs_.on_op(op, resolver_);
    const size_t landed_before = p_.externals.size();
    if (!captured) externals_.on_op(op, index, resolver_, p_);
    resolver_.on_op(op);
    const hb::OpOrder order = hb_.apply(op);
    resolver_.resolve(op, resolved_);

    SimOp s;
    s.seq = op.seq();
    s.observes_external = p_.externals.size() > landed_before;
    s.thread = op.thread() - 1;
    s.device = hb::is_device_op(op);
    s.stream = s.device ? op.stream() : 0;
    s.resource = s.device ? resource_of(op) : Resource::kNone;
    // Rule 1a: it may overlap the op right before it on its stream.
    s.overlaps_previous = order.pdl.contains(order.epoch.tick - 1);
    const int64_t call = span_ns(op.host_start(), op.host_end());
    s.call_ns = std::max<int64_t>(0, costs_.use_traced_times && call > 0 ? call : costs_.call_ns);
    if (s.device) {
      const bool traced =
          costs_.use_traced_times && op.has_device_start() && op.device_end() > op.device_start();
      s.device_ns = std::max<int64_t>(0, traced ? span_ns(op.device_start(), op.device_end())
                                                : modelled_device_ns(op, resolved_, costs_));
    }
    s.accesses = static_cast<uint32_t>(p_.accesses.size());
    for (const auto& a : resolved_) {
      // An access of unknown mode may neither read nor write: tracking it
      // as both would show corruptions the program need not have. A
      // captured op does not run (its graph's launches do).
      if (!a.mode_known || captured) continue;
      const race::RegionInfo* r = resolver_.region(a.region);
      p_.accesses.push_back(
          {a.space, graphs_.reference_space(op, a, p_), a.lo, a.hi, r ? r->label : 0u, a.reads, a.writes});
    }
    s.access_count = static_cast<uint32_t>(p_.accesses.size()) - s.accesses;

    // Who did what, so (agent, tick) can be turned back into an op.
    note_tick(order.epoch, index);
    p_.threads[s.thread].push_back(index);
    note_tick(
        {hb_.thread_agent(op.thread()), hb_.thread_clock(op.thread()).get(hb_.thread_agent(op.thread()))},
        index);

    const uint32_t own_thread = hb_.thread_agent(op.thread());
    if (s.device) {
      hb::VectorClock& before = stream_seen_[op.stream()];
      s.device_deps = static_cast<uint32_t>(p_.deps.size());
      add_growth(hb_.stream_clock(op.stream()), before, order.epoch.agent, own_thread, index, true);
      s.device_dep_count = static_cast<uint32_t>(p_.deps.size()) - s.device_deps;
      before = hb_.stream_clock(op.stream());
    }
    hb::VectorClock& thread_before = thread_seen_[op.thread()];
    s.host_deps = static_cast<uint32_t>(p_.deps.size());
    add_growth(hb_.thread_clock(op.thread()), thread_before, own_thread, own_thread, index, false);
    if (order.staged_clock) p_.deps.push_back({index, Dep::kDeviceStart});
    s.staged = order.staged_clock != nullptr;
    s.host_dep_count = static_cast<uint32_t>(p_.deps.size()) - s.host_deps;
    thread_before = hb_.thread_clock(op.thread());
    p_.ops.push_back(s);
  }

  void note_tick(hb::Epoch e, uint32_t index) {
    if (agent_ops_.size() <= e.agent) agent_ops_.resize(e.agent + 1);
    auto& ticks = agent_ops_[e.agent];
    if (ticks.size() < e.tick) ticks.resize(e.tick, index);
  }

  // Dependencies for every agent whose entry grew from `before` to `after`
  // (except `self`, whose order is the FIFO itself), for the device part
  // of op `index` or its host part.
  void add_growth(const hb::VectorClock& after, const hb::VectorClock& before, uint32_t self,
                  uint32_t own_thread, uint32_t index, bool device_part) {
    after.for_each([&](uint32_t agent, hb::Tick tick) {
      if (agent == self || tick <= before.get(agent)) return;
      if (agent >= agent_ops_.size() || tick > agent_ops_[agent].size()) return;  // no op has this point
      const uint32_t op = agent_ops_[agent][tick - 1];
      const bool thread = hb_.agent(agent).kind == hb::AgentKind::kThread;
      // A device op depends on its own call having been issued; on any
      // other call having returned.
      const Dep::Part part =
          !thread ? Dep::kDeviceEnd : (agent == own_thread && op == index ? Dep::kIssue : Dep::kHostEnd);
      // Only a blocking call's return waits for its own device part (a
      // graph launch's stream clock covers its own nodes).
      if (op == index && (part == Dep::kHostEnd || (part == Dep::kDeviceEnd && device_part))) return;
      p_.deps.push_back({op, part});
    });
  }

  Program& p_;
  const CostModel& costs_;
  hb::HappensBefore hb_;
  race::AccessResolver resolver_;
  CapturedAddresses graphs_;
  ExternalLandings externals_;
  race::PdlWaitFacts pdl_facts_;
  std::vector<race::ResolvedAccess> resolved_;
  std::vector<SpillArray<uint32_t>> agent_ops_;  // agent -> op index by tick - 1
  std::unordered_map<uint32_t, hb::VectorClock> stream_seen_, thread_seen_;
};

}  // namespace

size_t Program::index_of(uint64_t seq) const {
  auto it =
      std::lower_bound(ops.begin(), ops.end(), seq, [](const SimOp& o, uint64_t s) { return o.seq < s; });
  return it != ops.end() && it->seq == seq ? static_cast<size_t>(it - ops.begin()) : ops.size();
}

std::pair<uint32_t, uint32_t> Program::observed_at(uint32_t op) const {
  if (!ops[op].observes_external) return {0, 0};  // most ops: asked of every one
  auto lo = std::lower_bound(externals.begin(), externals.end(), op,
                             [](const ExternalLanding& e, uint32_t o) { return e.observer < o; });
  auto hi = std::upper_bound(lo, externals.end(), op,
                             [](uint32_t o, const ExternalLanding& e) { return o < e.observer; });
  return {static_cast<uint32_t>(lo - externals.begin()), static_cast<uint32_t>(hi - externals.begin())};
}

Result<Program> load_program(const std::string& path, const CostModel& costs, const Progress& progress,
                             std::shared_ptr<race::CodeModeTable> code_modes,
                             const hb::Assumptions& assumptions) {
  auto source = TraceSource::open(path);
  if (!source) return source.error();
  return load_program(*source, costs, progress, std::move(code_modes), assumptions);
}

Result<Program> load_program(TraceSource& source, const CostModel& costs, const Progress& progress,
                             std::shared_ptr<race::CodeModeTable> code_modes,
                             const hb::Assumptions& assumptions) {
  Program p;
  p.tables = std::make_shared<TraceTables>();
  Loader loader(p, costs, std::move(code_modes), assumptions);
  for (;;) {
    const uint64_t at = source.position();
    auto chunk = source.read();
    if (!chunk) return chunk.error();
    if (!*chunk) break;
    if (std::string why = loader.add_chunk(**chunk); !why.empty()) return Error{why, at, source.path()};
    if (progress) progress("loading", source.position(), source.size());
  }
  loader.finish();
  for (const SimOp& op : p.ops)
    if (op.device && std::find(p.stream_ids.begin(), p.stream_ids.end(), op.stream) == p.stream_ids.end())
      p.stream_ids.push_back(op.stream);
  std::sort(p.stream_ids.begin(), p.stream_ids.end());
  for (const auto& d : p.tables->header().devices()) {
    if (d.h2d_copy_engines()) p.h2d_engines = d.h2d_copy_engines();
    if (d.d2h_copy_engines()) p.d2h_engines = d.d2h_copy_engines();
  }
  return p;
}

}  // namespace racetrack::des
