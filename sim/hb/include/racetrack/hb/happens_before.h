// The CUDA ordering model (docs/ordering-rules.md) as vector
// clocks: ops are applied in submission order, and each gets an epoch (its
// point in its agent's history) and a clock (everything it is ordered after).
// Op A happens-before op B exactly when B's clock covers A's epoch. State is
// per stream, thread, event and graph-node slot: it does not grow with the
// length of the trace.
#pragma once

#include <unordered_map>
#include <vector>

#include "racetrack/hb/vector_clock.h"
#include "racetrack/traces/container.h"

namespace racetrack::hb {

// Ops that run on their stream (and so tick the stream's clock); all others
// are host-side calls of their thread.
bool is_device_op(const v1::Op& op);

enum class AgentKind { kStream, kThread, kGraphNode };

struct AgentInfo {
  AgentKind kind = AgentKind::kStream;
  uint32_t id = 0;  // stream or thread id; node slot index for graph nodes
};

// What one op (or one graph node) is ordered after.
struct OpOrder {
  Epoch epoch;
  const VectorClock* clock = nullptr;  // valid until the next apply()
};

class HappensBefore {
 public:
  void add_stream(const v1::Stream& stream);
  void add_thread(const v1::HostThread& thread);
  // Declares the entities of a chunk (streams and threads).
  void add_entities(const v1::Chunk& chunk);

  // Why apply() cannot take this op (a thread or stream it names is not
  // defined), or empty when it can. Traces that pass `racetrack validate`
  // never fail this.
  std::string cannot_apply(const v1::Op& op) const;
  // Applies one op; ops must come in submission order.
  OpOrder apply(const v1::Op& op);
  // After applying a graph launch: the order of each node, by index.
  const std::vector<OpOrder>& graph_nodes() const { return node_orders_; }

  // What a thread or stream is ordered after now (after its latest op).
  const VectorClock& thread_clock(uint32_t thread) const { return threads_.at(thread - 1).clock; }
  const VectorClock& stream_clock(uint32_t stream) const { return streams_.at(stream - 1).clock; }

  uint32_t stream_agent(uint32_t stream) const;
  uint32_t thread_agent(uint32_t thread) const;
  const AgentInfo& agent(uint32_t index) const { return agents_[index]; }
  size_t agent_count() const { return agents_.size(); }

 private:
  struct StreamState {
    uint32_t agent = 0;
    uint32_t device = 0;
    v1::StreamFlags flags = v1::STREAM_BLOCKING;
    VectorClock clock;
    // Per host thread agent: the thread's join count at the last enqueue,
    // so an enqueue only merges a host clock that changed.
    std::unordered_map<uint32_t, uint64_t> seen_host_joins;
    uint64_t seen_legacy_version = 0;
  };
  struct ThreadState {
    uint32_t agent = 0;
    VectorClock clock;
    uint64_t joins = 0;  // bumped whenever the clock learns from elsewhere
  };

  StreamState& stream(uint32_t id);
  ThreadState& thread(uint32_t id);
  // The host joins a clock (a synchronisation).
  void host_join(ThreadState& t, const VectorClock& c);
  void host_join_device(ThreadState& t, int device);  // -1: every device
  // Enqueue rule and legacy default stream rule (before the op's tick).
  void prepare(StreamState& s, ThreadState& t);
  Epoch tick(StreamState& s);
  Epoch apply_graph(const v1::GraphLaunch& graph, StreamState& s, ThreadState& t);
  static bool is_blocking(v1::StreamFlags flags) {
    return flags == v1::STREAM_BLOCKING || flags == v1::STREAM_PER_THREAD_DEFAULT;
  }

  std::vector<AgentInfo> agents_;
  std::vector<StreamState> streams_;  // by stream id - 1
  std::vector<ThreadState> threads_;  // by thread id - 1
  std::vector<VectorClock> events_;   // by event id: last record's snapshot
  std::vector<bool> recorded_;
  // Captured traces name the record a wait bound to (cudaEventSyncId). When
  // threads race, that can be an earlier record than the last one in
  // submission order, so the last few snapshots of each event are kept by
  // sync id.
  struct SyncedRecord {
    uint64_t sync_id = 0;
    VectorClock clock;
  };
  struct SyncedRecords {
    std::array<SyncedRecord, 4> last;  // a ring, oldest overwritten
    size_t next = 0;
  };
  std::vector<SyncedRecords> synced_;  // by event id
  const VectorClock* record_for_wait(uint32_t event, uint64_t sync_id) const;
  // Graph node slots: one agent per (stream, node index), so successive
  // launches on one stream keep their ticks increasing.
  std::unordered_map<uint64_t, uint32_t> node_slots_;
  std::vector<Tick> slot_ticks_;  // by agent index (0 for non-slots)
  std::vector<VectorClock> node_clocks_;
  std::vector<OpOrder> node_orders_;
  // Per device: its legacy default stream and that stream's op count.
  std::unordered_map<uint32_t, uint32_t> legacy_stream_;
  std::unordered_map<uint32_t, uint64_t> legacy_version_;
};

}  // namespace racetrack::hb
