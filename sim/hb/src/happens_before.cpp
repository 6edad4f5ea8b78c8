#include "racetrack/hb/happens_before.h"

namespace racetrack::hb {

bool is_device_op(const v1::Op& op) {
  switch (op.what_case()) {
    case v1::Op::kKernel:
    case v1::Op::kMemcpy:
    case v1::Op::kMemset:
    case v1::Op::kRecord:
    case v1::Op::kWait:
    case v1::Op::kHostFunc:
    case v1::Op::kGraph: return true;
    case v1::Op::kAlloc: return op.alloc().stream_ordered();
    case v1::Op::kFree: return op.free().stream_ordered();
    default: return false;
  }
}

namespace {

bool is_host_space(v1::AddressSpace s) { return s == v1::SPACE_PINNED_HOST || s == v1::SPACE_PAGEABLE_HOST; }

// Copies after which the calling thread has waited for the copy (and all
// earlier work on its stream): blocking cudaMemcpy, host-to-host copies, and
// async D2H into pageable memory.
bool copy_joins_host(const v1::Memcpy& c) {
  if (!c.async()) return true;
  if (is_host_space(c.src_space()) && is_host_space(c.dst_space())) return true;
  return c.dst_space() == v1::SPACE_PAGEABLE_HOST && !is_host_space(c.src_space());
}

}  // namespace

void HappensBefore::add_stream(const v1::Stream& stream) {
  if (stream.id() != streams_.size() + 1) return;  // the validator reports it
  StreamState s;
  s.agent = static_cast<uint32_t>(agents_.size());
  s.device = stream.device();
  s.flags = stream.flags();
  agents_.push_back({AgentKind::kStream, stream.id()});
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

const VectorClock* HappensBefore::record_for_wait(uint32_t event, uint64_t sync_id) const {
  if (event >= recorded_.size() || !recorded_[event]) return nullptr;
  if (sync_id != 0 && event < synced_.size())
    for (const SyncedRecord& r : synced_[event].last)
      if (r.sync_id == sync_id) return &r.clock;
  return &events_[event];
}

HappensBefore::StreamState& HappensBefore::stream(uint32_t id) { return streams_.at(id - 1); }
HappensBefore::ThreadState& HappensBefore::thread(uint32_t id) { return threads_.at(id - 1); }

uint32_t HappensBefore::stream_agent(uint32_t id) const { return streams_.at(id - 1).agent; }
uint32_t HappensBefore::thread_agent(uint32_t id) const { return threads_.at(id - 1).agent; }

void HappensBefore::host_join(ThreadState& t, const VectorClock& c) {
  if (t.clock.join(c)) ++t.joins;
}

void HappensBefore::host_join_device(ThreadState& t, int device) {
  for (const StreamState& s : streams_)
    if (device < 0 || s.device == static_cast<uint32_t>(device)) host_join(t, s.clock);
}

void HappensBefore::prepare(StreamState& s, ThreadState& t) {
  // Enqueue: the op is ordered after all the thread had observed.
  s.clock.raise(t.agent, t.clock.get(t.agent));
  uint64_t& seen = s.seen_host_joins[t.agent];
  if (seen != t.joins) {
    s.clock.join(t.clock);
    seen = t.joins;
  }
  // Legacy default stream: it waits for earlier work on the device's
  // blocking streams, and their later work waits for it.
  if (s.flags == v1::STREAM_LEGACY_DEFAULT) {
    for (const StreamState& other : streams_)
      if (&other != &s && other.device == s.device && is_blocking(other.flags)) s.clock.join(other.clock);
    ++legacy_version_[s.device];
  } else if (is_blocking(s.flags)) {
    auto legacy = legacy_stream_.find(s.device);
    if (legacy != legacy_stream_.end()) {
      const uint64_t version = legacy_version_[s.device];
      if (s.seen_legacy_version != version) {
        s.clock.join(stream(legacy->second).clock);
        s.seen_legacy_version = version;
      }
    }
  }
}

Epoch HappensBefore::tick(StreamState& s) { return Epoch{s.agent, s.clock.tick(s.agent)}; }

Epoch HappensBefore::apply_graph(const v1::GraphLaunch& graph, StreamState& s, ThreadState& t) {
  prepare(s, t);
  const auto& nodes = graph.nodes();
  node_clocks_.assign(nodes.size(), VectorClock());
  node_orders_.resize(nodes.size());
  for (int i = 0; i < nodes.size(); ++i) {
    // Roots wait for earlier stream work; other nodes for their deps too.
    VectorClock& c = node_clocks_[i];
    c = s.clock;
    for (uint32_t dep : nodes[i].deps())
      if (dep < static_cast<uint32_t>(i)) c.join(node_clocks_[dep]);
    const uint64_t key = (uint64_t{s.agent} << 32) | static_cast<uint32_t>(i);
    auto [slot, added] = node_slots_.try_emplace(key, static_cast<uint32_t>(agents_.size()));
    if (added) agents_.push_back({AgentKind::kGraphNode, static_cast<uint32_t>(i)});
    if (slot_ticks_.size() <= slot->second) slot_ticks_.resize(slot->second + 1, 0);
    const Tick node_tick = ++slot_ticks_[slot->second];
    c.set(slot->second, node_tick);
    node_orders_[i] = OpOrder{Epoch{slot->second, node_tick}, &c};
  }
  // Later work on the stream waits for every node.
  for (const VectorClock& c : node_clocks_) s.clock.join(c);
  return tick(s);
}

std::string HappensBefore::cannot_apply(const v1::Op& op) const {
  const std::string where = "op seq " + std::to_string(op.seq()) + ": ";
  if (op.thread() == 0 || op.thread() > threads_.size())
    return where + "names host thread " + std::to_string(op.thread()) + ", which is not defined";
  const bool needs_stream = is_device_op(op) || (op.has_sync() && op.sync().kind() == v1::SYNC_STREAM) ||
                            (op.has_query() && op.query().kind() == v1::QUERY_STREAM);
  if (needs_stream && (op.stream() == 0 || op.stream() > streams_.size()))
    return where + "names stream " + std::to_string(op.stream()) + ", which is not defined";
  return {};
}

OpOrder HappensBefore::apply(const v1::Op& op) {
  node_orders_.clear();
  ThreadState& t = thread(op.thread());
  t.clock.tick(t.agent);  // host program order: every call is a point of its thread

  if (is_device_op(op)) {
    StreamState& s = stream(op.stream());
    Epoch epoch;
    if (op.has_graph()) {
      epoch = apply_graph(op.graph(), s, t);
    } else {
      prepare(s, t);
      if (op.has_wait()) {
        // Binds to the generation recorded last (or the one its sync id
        // names); a never-recorded event is a no-op.
        if (const VectorClock* c = record_for_wait(op.wait().event(), op.wait().sync_id())) s.clock.join(*c);
      }
      epoch = tick(s);
    }
    if (op.has_record()) {
      const uint32_t e = op.record().event();
      if (events_.size() <= e) {
        events_.resize(e + 1);
        recorded_.resize(e + 1, false);
      }
      events_[e] = s.clock;  // the snapshot at record time
      recorded_[e] = true;
      if (const uint64_t id = op.record().sync_id()) {
        if (synced_.size() <= e) synced_.resize(e + 1);
        SyncedRecords& kept = synced_[e];
        kept.last[kept.next] = SyncedRecord{id, s.clock};
        kept.next = (kept.next + 1) % kept.last.size();
      }
    }
    if (op.has_memcpy() && copy_joins_host(op.memcpy())) host_join(t, s.clock);
    if ((op.has_alloc() && op.alloc().device_sync()) || (op.has_free() && op.free().device_sync()))
      host_join_device(t, -1);
    return OpOrder{epoch, &s.clock};
  }

  switch (op.what_case()) {
    case v1::Op::kSync:
      switch (op.sync().kind()) {
        case v1::SYNC_STREAM: host_join(t, stream(op.stream()).clock); break;
        case v1::SYNC_EVENT: {
          const uint32_t e = op.sync().event();
          if (e < recorded_.size() && recorded_[e]) host_join(t, events_[e]);
          break;
        }
        case v1::SYNC_DEVICE: host_join_device(t, static_cast<int>(op.sync().device())); break;
        default: break;
      }
      break;
    case v1::Op::kQuery:
      // Only a successful query tells the host the work is done.
      if (!op.query().ready()) break;
      if (op.query().kind() == v1::QUERY_STREAM) {
        host_join(t, stream(op.stream()).clock);
      } else {
        const uint32_t e = op.query().event();
        if (e < recorded_.size() && recorded_[e]) host_join(t, events_[e]);
      }
      break;
    case v1::Op::kAlloc:
      if (op.alloc().device_sync()) host_join_device(t, -1);
      break;
    case v1::Op::kFree:
      if (op.free().device_sync()) host_join_device(t, -1);
      break;
    default: break;
  }
  return OpOrder{Epoch{t.agent, t.clock.get(t.agent)}, &t.clock};
}

}  // namespace racetrack::hb
