#include "racetrack/hb/happens_before.h"

#include <algorithm>

namespace racetrack::hb {

namespace {

bool is_host_space(v1::AddressSpace s) {
  return s == v1::SPACE_PINNED_HOST || s == v1::SPACE_PAGEABLE_HOST;
}

}  // namespace

CopyJoin copy_join(const v1::Memcpy& c, const Assumptions& assume) {
  const bool src_host = is_host_space(c.src_space()), dst_host = is_host_space(c.dst_space());
  if (src_host && dst_host) return CopyJoin::kJoin;  // host to host: fully synchronous, either form
  const bool pageable_d2h = dst_host && c.dst_space() == v1::SPACE_PAGEABLE_HOST;
  const bool pageable_h2d = src_host && c.src_space() == v1::SPACE_PAGEABLE_HOST;
  if (!c.async()) {
    if (dst_host) return CopyJoin::kJoin;                 // device to host: returns when done
    if (pageable_h2d) return CopyJoin::kStaged;           // returns once staged
    return src_host ? CopyJoin::kJoin : CopyJoin::kNone;  // pinned to device; device to device
  }
  if (pageable_d2h) return assume.pageable_async_d2h_sync ? CopyJoin::kJoin : CopyJoin::kNone;
  if (pageable_h2d) return assume.pageable_async_h2d_staged ? CopyJoin::kStaged : CopyJoin::kNone;
  return CopyJoin::kNone;
}

bool is_blocking_peer_copy(const v1::Memcpy& c) {
  return !c.async() && !is_host_space(c.src_space()) && !is_host_space(c.dst_space()) &&
         (c.direction() == v1::COPY_P2P || c.src_device() != c.dst_device());
}

bool memset_joins_host(const v1::Memset& m) {
  return !m.async() && (m.space() == v1::SPACE_PINNED_HOST || m.space() == v1::SPACE_MANAGED);
}

bool call_syncs_device(const v1::Op& op, const Assumptions& assume) {
  if (op.has_alloc()) return op.alloc().device_sync() && assume.alloc_syncs;
  if (op.has_free()) return op.free().device_sync() && assume.free_syncs;
  return false;
}

void HappensBefore::add_stream(const v1::Stream& stream) {
  if (stream.id() != streams_.size() + 1) return;  // the validator reports it
  StreamState s;
  s.agent = static_cast<uint32_t>(agents_.size());
  s.device = stream.device();
  s.flags = stream.flags();
  agents_.push_back({AgentKind::kStream, stream.id()});
  const auto index = static_cast<uint32_t>(streams_.size());
  for (uint32_t i = 0; i < index; ++i) {
    StreamState& other = streams_[i];
    if (other.device != s.device) continue;
    if (s.flags == v1::STREAM_LEGACY_DEFAULT && is_blocking(other.flags)) s.blocking_peers.push_back(i);
    if (other.flags == v1::STREAM_LEGACY_DEFAULT && is_blocking(s.flags))
      other.blocking_peers.push_back(index);
  }
  if (s.flags == v1::STREAM_LEGACY_DEFAULT) legacy_stream_.try_emplace(s.device, stream.id());
  streams_.push_back(std::move(s));
}

void HappensBefore::add_thread(const v1::HostThread& thread) {
  if (thread.id() != threads_.size() + 1) return;
  ThreadState t;
  t.agent = static_cast<uint32_t>(agents_.size());
  agents_.push_back({AgentKind::kThread, thread.id()});
  threads_.push_back(std::move(t));
}

void HappensBefore::add_entities(const v1::Chunk& chunk) {
  for (const auto& s : chunk.streams()) add_stream(s);
  for (const auto& t : chunk.threads()) add_thread(t);
}

size_t HappensBefore::EventState::entries() const {
  size_t n = last.entries();
  if (programmatic) n += programmatic->full.entries();
  if (synced)
    for (const SyncedRecord& r : synced->last) n += r.clock.entries();
  return n;
}

const VectorClock* HappensBefore::last_record(uint32_t event) const {
  auto it = events_.find(event);
  return it == events_.end() ? nullptr : &it->second.last;
}

const VectorClock* HappensBefore::record_for_wait(uint32_t event, uint64_t sync_id) const {
  auto it = events_.find(event);
  if (it == events_.end()) return nullptr;
  if (sync_id != 0 && it->second.synced)
    for (const SyncedRecord& r : it->second.synced->last)
      if (r.sync_id == sync_id) return &r.clock;
  return &it->second.last;
}

void HappensBefore::record(uint32_t event, uint64_t sync_id, const VectorClock& clock) {
  EventState& e = events_[event];
  const size_t before = e.entries();
  e.last = clock;  // the snapshot at record time
  e.programmatic.reset();
  if (sync_id != 0) {
    if (!e.synced) e.synced = std::make_unique<SyncedRecords>();
    SyncedRecords& kept = *e.synced;
    kept.last[kept.next] = SyncedRecord{sync_id, clock};
    kept.next = (kept.next + 1) % kept.last.size();
  }
  clock_entries_ += e.entries() - before;  // modulo 2^64: a shrink subtracts
}

const ProgrammaticRecord* HappensBefore::programmatic_record(uint32_t event) const {
  auto it = events_.find(event);
  return it == events_.end() ? nullptr : it->second.programmatic.get();
}

void HappensBefore::record_programmatic(const v1::Op& op, const StreamState& s, const OpOrder& order) {
  // Rule 5a: the event triggers once every block has triggered or exited,
  // so a waiter learns only what the kernel itself was ordered after; the
  // kernel done only through a dependent kernel's grid-dependency wait.
  auto r = std::make_shared<ProgrammaticRecord>();
  r->full = s.clock;
  r->trigger = trigger_clock(s.clock, order.epoch, order.pdl);
  r->kernel = order.epoch;
  r->kernel_seq = op.seq();
  r->at_block_start = op.kernel().programmatic_event_at_block_start();
  EventState& e = events_[op.kernel().programmatic_event()];
  const size_t before = e.entries();
  e.last = r->trigger;
  e.programmatic = std::move(r);
  clock_entries_ += e.entries() - before;
}

void HappensBefore::note_programmatic_wait(ProgrammaticWaits& waits, const ProgrammaticRecord& r,
                                           const v1::Op& op, uint32_t event) {
  ProgrammaticWait w;
  w.kernel_seq = r.kernel_seq;
  w.wait_seq = op.seq();
  w.event = event;
  w.at_block_start = r.at_block_start;
  waits.add(w);
}

HappensBefore::StreamState& HappensBefore::stream(uint32_t id) {
  return streams_.at(id - 1);
}
HappensBefore::ThreadState& HappensBefore::thread(uint32_t id) {
  return threads_.at(id - 1);
}

uint32_t HappensBefore::stream_agent(uint32_t id) const {
  return streams_.at(id - 1).agent;
}
uint32_t HappensBefore::thread_agent(uint32_t id) const {
  return threads_.at(id - 1).agent;
}

void HappensBefore::host_join(ThreadState& t, const VectorClock& c) {
  if (t.clock.join(c)) ++t.joins;
}

void HappensBefore::host_join_device(ThreadState& t, int device) {
  for (const StreamState& s : streams_)
    if (device < 0 || s.device == static_cast<uint32_t>(device)) host_join(t, s.clock);
}

void HappensBefore::host_join_stream(ThreadState& t, const StreamState& s) {
  host_join(t, s.clock);
  if (s.flags != v1::STREAM_LEGACY_DEFAULT) return;
  for (const StreamState& other : streams_)
    if (other.device == s.device && is_blocking(other.flags)) host_join(t, other.clock);
}

void HappensBefore::join_devices(StreamState& s, const v1::Memcpy& copy) {
  for (const StreamState& other : streams_)
    if (&other != &s &&
        (other.device == s.device || other.device == copy.src_device() || other.device == copy.dst_device()))
      s.clock.join(other.clock);
}

void HappensBefore::publish_barrier(const StreamState& s, const v1::Memcpy& copy) {
  for (uint32_t device : {s.device, copy.src_device(), copy.dst_device()}) {
    Barrier& b = barriers_[device];
    clock_entries_ += s.clock.entries() - std::min(s.clock.entries(), b.clock.entries());
    b.clock = s.clock;
    ++b.version;
  }
}

void HappensBefore::prepare(StreamState& s, ThreadState& t) {
  // Enqueue: the op is ordered after all the thread had observed.
  s.clock.raise(t.agent, t.clock.get(t.agent));
  // Most streams are fed by one thread: the last one's count is kept out
  // of the map, which holds the others'.
  if (s.host_agent != t.agent) {
    if (s.host_agent != UINT32_MAX) s.seen_host_joins[s.host_agent] = s.host_joins;
    const auto it = s.seen_host_joins.find(t.agent);
    s.host_joins = it == s.seen_host_joins.end() ? 0 : it->second;
    s.host_agent = t.agent;
  }
  if (s.host_joins != t.joins) {
    s.clock.join(t.clock);
    s.host_joins = t.joins;
  }
  // Legacy default stream: it waits for earlier work on the device's
  // blocking streams, and their later work waits for it.
  if (s.flags == v1::STREAM_LEGACY_DEFAULT) {
    for (uint32_t other : s.blocking_peers) s.clock.join(streams_[other].clock);
    ++s.legacy_ops;
  } else if (is_blocking(s.flags) && !legacy_stream_.empty()) {
    auto legacy = legacy_stream_.find(s.device);
    if (legacy != legacy_stream_.end()) {
      const StreamState& l = stream(legacy->second);
      if (s.seen_legacy_ops != l.legacy_ops) {
        s.clock.join(l.clock);
        s.seen_legacy_ops = l.legacy_ops;
      }
    }
  }
  // A blocking peer copy orders the later work of its devices' streams.
  if (barriers_.empty()) return;
  if (auto b = barriers_.find(s.device);
      b != barriers_.end() && s.seen_barrier_version != b->second.version) {
    s.clock.join(b->second.clock);
    s.seen_barrier_version = b->second.version;
  }
}

Epoch HappensBefore::tick(StreamState& s) {
  return Epoch{s.agent, s.clock.tick(s.agent)};
}

bool HappensBefore::thread_defined(const v1::Op& op) const {
  return op.thread() != 0 && op.thread() <= threads_.size();
}

bool HappensBefore::stream_defined_if_needed(const v1::Op& op) const {
  const bool needs_stream = is_device_op(op) || (op.has_sync() && op.sync().kind() == v1::SYNC_STREAM) ||
                            (op.has_query() && op.query().kind() == v1::QUERY_STREAM);
  return !needs_stream || (op.stream() != 0 && op.stream() <= streams_.size());
}

bool HappensBefore::can_apply(const v1::Op& op) const {
  return thread_defined(op) && stream_defined_if_needed(op);
}

std::string HappensBefore::cannot_apply(const v1::Op& op) const {
  if (can_apply(op)) return {};
  const std::string where = "op seq " + std::to_string(op.seq()) + ": ";
  if (!thread_defined(op))
    return where + "names host thread " + std::to_string(op.thread()) + ", which is not defined";
  return where + "names stream " + std::to_string(op.stream()) + ", which is not defined";
}

OpOrder HappensBefore::apply(const v1::Op& op) {
  // The budget counts the clock entries an op adds: its thread's and
  // stream's here, recorded events' where they are recorded.
  ThreadState& t = thread(op.thread());
  const bool device = is_device_op(op);
  const VectorClock* stream_clock = device ? &stream(op.stream()).clock : nullptr;
  const size_t before = t.clock.entries() + (device ? stream_clock->entries() : 0);
  const Tick call = t.clock.tick(t.agent);  // host program order: every call is a point of its thread
  OpOrder order;
  if (device) {
    order = apply_device(op, t);
  } else {
    apply_host(op, t);
    order = OpOrder{Epoch{t.agent, call}, &t.clock};
    if (t.programmatic_waits.size()) order.programmatic = &t.programmatic_waits;
  }
  clock_entries_ += t.clock.entries() + (device ? stream_clock->entries() : 0) - before;
  if (clock_entries_ > max_clock_entries_ && exceeded_.empty())
    exceeded_ = "op seq " + std::to_string(op.seq()) + ": the happens-before clocks of " +
                std::to_string(streams_.size()) + " streams, " + std::to_string(threads_.size()) +
                " threads and " + std::to_string(events_.size()) + " recorded events need more than " +
                std::to_string(max_clock_entries_) + " entries (16 bytes each), racetrack's limit";
  return order;
}

OpOrder HappensBefore::apply_device(const v1::Op& op, ThreadState& t) {
  StreamState& s = stream(op.stream());
  const CopyJoin copy = op.has_memcpy() ? copy_join(op.memcpy(), assumptions_) : CopyJoin::kNone;
  // A staged copy first waits for the stream's earlier work ("a stream sync
  // is performed before the copy is initiated").
  if (copy == CopyJoin::kStaged) host_join_stream(t, s);
  const uint64_t last_tick = s.clock.get(s.agent);
  const bool host_saw_last = last_tick && t.clock.get(s.agent) >= last_tick;
  prepare(s, t);
  // Rule 5a: the op right after a wait on a programmatic event is the
  // dependent launch when it is a kernel; its grid-dependency wait, before
  // every access, orders it after the whole kernel.
  if (std::shared_ptr<const ProgrammaticRecord> dependent = std::move(s.pending_dependent);
      dependent && op.has_kernel()) {
    const PdlWait wait = pdl_wait_ ? pdl_wait_(op.kernel()) : PdlWait::kUnknown;
    if (wait == PdlWait::kWaits) s.clock.join(dependent->full);
    if (ProgrammaticWait* w = s.programmatic_waits.latest(); w && w->kernel_seq == dependent->kernel_seq) {
      w->dependent_kernel = true;
      w->dependent_seq = op.seq();
      w->dependent_wait = wait;
    }
  }
  if (op.has_wait()) {
    // Binds to the generation recorded last (or the one its sync id names);
    // a never-recorded event is a no-op.
    const uint32_t event = op.wait().event();
    if (const VectorClock* c = record_for_wait(event, op.wait().sync_id())) {
      s.clock.join(*c);
      auto it = events_.find(event);
      if (c == &it->second.last && it->second.programmatic) {
        note_programmatic_wait(s.programmatic_waits, *it->second.programmatic, op, event);
        s.pending_dependent = it->second.programmatic;
      }
    }
  }
  const bool peer_barrier = op.has_memcpy() && is_blocking_peer_copy(op.memcpy());
  if (peer_barrier) join_devices(s, op.memcpy());
  const Epoch epoch = tick(s);
  OpOrder order{epoch, &s.clock};
  order.pdl = s.pdl.on_op(op, last_tick, host_saw_last, pdl_wait_);
  if (s.programmatic_waits.size()) order.programmatic = &s.programmatic_waits;
  if (op.has_graph()) {
    // Rule 9: roots wait for earlier stream work (the clock before the
    // tick), other nodes for their dependencies too (graph_), and later work
    // on the stream for every node (the tick). Nodes share the launch's
    // epoch: nothing outside the launch can wait for a single node.
    if (std::string why = graph_.build(op.graph(), max_graph_entries_); !why.empty() && exceeded_.empty())
      exceeded_ = "op seq " + std::to_string(op.seq()) + ": graph launch: " + why;
    order.graph = &graph_;
  }
  if (op.has_record()) record(op.record().event(), op.record().sync_id(), s.clock);
  if (op.has_kernel() && op.kernel().programmatic_event()) record_programmatic(op, s, order);
  if (peer_barrier) publish_barrier(s, op.memcpy());
  if (copy == CopyJoin::kJoin) host_join(t, s.clock);
  if (copy == CopyJoin::kStaged) {
    // The source was read on this thread, at this call: later calls are
    // ordered after the read, not after the device write.
    order.staged_epoch = Epoch{t.agent, t.clock.get(t.agent)};
    order.staged_clock = &t.clock;
  }
  if (op.has_memset() && memset_joins_host(op.memset())) host_join(t, s.clock);
  if (call_syncs_device(op, assumptions_)) host_join_device(t, -1);
  return order;
}

void HappensBefore::apply_host(const v1::Op& op, ThreadState& t) {
  switch (op.what_case()) {
    case v1::Op::kSync:
      switch (op.sync().kind()) {
        case v1::SYNC_STREAM: host_join_stream(t, stream(op.stream())); break;
        case v1::SYNC_EVENT:
          if (const VectorClock* c = last_record(op.sync().event())) host_join(t, *c);
          if (const ProgrammaticRecord* r = programmatic_record(op.sync().event()))
            note_programmatic_wait(t.programmatic_waits, *r, op, op.sync().event());
          break;
        case v1::SYNC_DEVICE: host_join_device(t, static_cast<int>(op.sync().device())); break;
        default: break;
      }
      break;
    case v1::Op::kQuery:
      // Only a successful query tells the host the work is done.
      if (!op.query().ready()) break;
      if (op.query().kind() == v1::QUERY_STREAM) {
        host_join_stream(t, stream(op.stream()));
      } else if (const VectorClock* c = last_record(op.query().event())) {
        host_join(t, *c);
        if (const ProgrammaticRecord* r = programmatic_record(op.query().event()))
          note_programmatic_wait(t.programmatic_waits, *r, op, op.query().event());
      }
      break;
    case v1::Op::kAlloc:
    case v1::Op::kFree:
      if (call_syncs_device(op, assumptions_)) host_join_device(t, -1);
      break;
    default: break;
  }
}

}  // namespace racetrack::hb
