// The CUDA ordering model (docs/ordering-rules.md) as vector
// clocks: ops are applied in submission order, and each gets an epoch (its
// point in its agent's history) and a clock (everything it is ordered after).
// Op A happens-before op B exactly when B's clock covers A's epoch. State is
// per stream, thread and recorded event: it does not grow with the length of
// the trace.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "racetrack/hb/graph_order.h"
#include "racetrack/hb/vector_clock.h"
#include "racetrack/traces/container.h"

namespace racetrack::hb {

// Ops that run on their stream (and so tick the stream's clock); all others
// are host-side calls of their thread.
bool is_device_op(const v1::Op& op);

enum class AgentKind { kStream, kThread };

struct AgentInfo {
  AgentKind kind = AgentKind::kStream;
  uint32_t id = 0;  // stream or thread id
};

// What one op (or one graph node) is ordered after. A graph launch's nodes
// share the launch's epoch and clock; among themselves they are ordered by
// the launch's GraphOrder.
struct OpOrder {
  Epoch epoch;
  const VectorClock* clock = nullptr;  // valid until the next apply()
  const GraphOrder* graph = nullptr;   // graph launches; valid until the next apply()
  uint32_t node = 0;                   // graph node position + 1; 0 for the op as a whole

  OpOrder at_node(uint32_t position_plus_one) const {
    OpOrder o = *this;
    o.node = position_plus_one;
    return o;
  }
  // Whether the op (or graph node, `e_node` = position + 1) at `e` happens
  // before this one, or is it.
  bool covers(Epoch e, uint32_t e_node = 0) const {
    if (graph && node && e_node && e == epoch) return graph->follows(node - 1, e_node - 1);
    return clock->covers(e);
  }
};

class HappensBefore {
 public:
  // Clock entries (16 bytes each) all clocks together may hold: 2^25, 512
  // MiB. A trace that synchronises so many streams and threads with each
  // other is refused with a message rather than exhausting memory.
  static constexpr size_t kMaxClockEntries = size_t{1} << 25;

  explicit HappensBefore(size_t max_clock_entries = kMaxClockEntries,
                         size_t max_graph_entries = GraphOrder::kMaxEntries)
      : max_clock_entries_(max_clock_entries), max_graph_entries_(max_graph_entries) {}

  void add_stream(const v1::Stream& stream);
  void add_thread(const v1::HostThread& thread);
  // Declares the entities of a chunk (streams and threads).
  void add_entities(const v1::Chunk& chunk);

  // Why apply() cannot take this op (a thread or stream it names is not
  // defined), or empty when it can. Traces that pass `racetrack validate`
  // never fail this. Events need no definition: one never recorded orders
  // nothing.
  std::string cannot_apply(const v1::Op& op) const;
  // Applies one op; ops must come in submission order. Once exceeded() is
  // set the state is incomplete: stop applying.
  OpOrder apply(const v1::Op& op);
  // Why an op applied went past one of the limits (clock entries, or a
  // graph launch's GraphOrder entries), or empty.
  const std::string& exceeded() const { return exceeded_; }

  // What a thread or stream is ordered after now (after its latest op).
  const VectorClock& thread_clock(uint32_t thread) const { return threads_.at(thread - 1).clock; }
  const VectorClock& stream_clock(uint32_t stream) const { return streams_.at(stream - 1).clock; }

  uint32_t stream_agent(uint32_t stream) const;
  uint32_t thread_agent(uint32_t thread) const;
  const AgentInfo& agent(uint32_t index) const { return agents_[index]; }
  size_t agent_count() const { return agents_.size(); }
  size_t clock_entries() const { return clock_entries_; }

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
  struct EventState {
    VectorClock last;                       // the last record's snapshot
    std::unique_ptr<SyncedRecords> synced;  // only for records with a sync id
    size_t entries() const;
  };

  StreamState& stream(uint32_t id);
  ThreadState& thread(uint32_t id);
  // The host joins a clock (a synchronisation).
  void host_join(ThreadState& t, const VectorClock& c);
  void host_join_device(ThreadState& t, int device);  // -1: every device
  // Enqueue rule and legacy default stream rule (before the op's tick).
  void prepare(StreamState& s, ThreadState& t);
  Epoch tick(StreamState& s);
  void record(uint32_t event, uint64_t sync_id, const VectorClock& clock);
  const VectorClock* record_for_wait(uint32_t event, uint64_t sync_id) const;
  const VectorClock* last_record(uint32_t event) const;
  OpOrder apply_device(const v1::Op& op, ThreadState& t);
  void apply_host(const v1::Op& op, ThreadState& t);
  // Clock entries of the state `op` changes, for the budget.
  size_t touched_entries(const v1::Op& op) const;
  static bool is_blocking(v1::StreamFlags flags) {
    return flags == v1::STREAM_BLOCKING || flags == v1::STREAM_PER_THREAD_DEFAULT;
  }

  std::vector<AgentInfo> agents_;
  std::vector<StreamState> streams_;  // by stream id - 1
  std::vector<ThreadState> threads_;  // by thread id - 1
  // By event id, only events recorded so far: ids are whatever the trace
  // says, so state must not be sized by them.
  std::unordered_map<uint32_t, EventState> events_;
  GraphOrder graph_;  // of the last graph launch
  // Per device: its legacy default stream and that stream's op count.
  std::unordered_map<uint32_t, uint32_t> legacy_stream_;
  std::unordered_map<uint32_t, uint64_t> legacy_version_;
  size_t max_clock_entries_, max_graph_entries_;
  size_t clock_entries_ = 0;
  std::string exceeded_;
};

}  // namespace racetrack::hb
