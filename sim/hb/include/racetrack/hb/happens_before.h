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

#include "racetrack/hb/assumptions.h"
#include "racetrack/hb/graph_order.h"
#include "racetrack/hb/pdl.h"
#include "racetrack/hb/vector_clock.h"
#include "racetrack/traces/container.h"

namespace racetrack::hb {

// Ops that run on their stream (and so tick the stream's clock); all others
// are host-side calls of their thread. Inline: every stage asks it of
// every op.
inline bool is_device_op(const v1::Op& op) {
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

// The host-side rules of docs/ordering-rules.md (rules 6a-6f), shared by the
// vector clocks and the explicit graph. What a copy does to its calling
// thread: nothing, a join of the copy (the call returns when it is done), or
// staged (the call first waits for the stream's earlier work, then reads
// the source and returns with the device write still in flight). Managed
// memory counts as device memory.
enum class CopyJoin { kNone, kJoin, kStaged };
CopyJoin copy_join(const v1::Memcpy& copy, const Assumptions& assume);
// A blocking copy between two devices (cudaMemcpyPeer): serialised with all
// earlier and later work of the stream's device and both ends' devices.
bool is_blocking_peer_copy(const v1::Memcpy& copy);
// A blocking memset into pinned host or managed memory returns when done.
bool memset_joins_host(const v1::Memset& memset);
// An allocation or free the assumptions make a device-wide host join.
bool call_syncs_device(const v1::Op& op, const Assumptions& assume);

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
  // A staged copy (pageable host to device) reads its source on the
  // calling thread before the call returns: that read's point and clock.
  // Null for every other op.
  const VectorClock* staged_clock = nullptr;
  Epoch staged_epoch{};
  // A PDL secondary kernel (rule 1a): the ticks of its own stream it is not
  // ordered after, although its clock covers them.
  PdlUnordered pdl{};
  // The programmatic events its agent waited on (rule 5a); null when none.
  const ProgrammaticWaits* programmatic = nullptr;

  // The order of a staged copy's source read (access index 0 of a copy).
  OpOrder staged_read() const {
    OpOrder o;
    o.epoch = staged_epoch;
    o.clock = staged_clock;
    return o;
  }

  OpOrder at_node(uint32_t position_plus_one) const {
    OpOrder o = *this;
    o.node = position_plus_one;
    return o;
  }
  // Whether the op (or graph node, `e_node` = position + 1) at `e` happens
  // before this one, or is it.
  bool covers(Epoch e, uint32_t e_node = 0) const {
    if (e.agent == epoch.agent && pdl.contains(e.tick)) return false;
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
                         size_t max_graph_entries = GraphOrder::kMaxEntries, Assumptions assumptions = {})
      : assumptions_(assumptions),
        max_clock_entries_(max_clock_entries),
        max_graph_entries_(max_graph_entries) {}
  explicit HappensBefore(Assumptions assumptions)
      : HappensBefore(kMaxClockEntries, GraphOrder::kMaxEntries, assumptions) {}

  const Assumptions& assumptions() const { return assumptions_; }
  // Whether a kernel's machine code waits for its grid dependencies (rule
  // 1a); without a lookup every PDL kernel's code counts as unknown.
  void set_pdl_wait_lookup(PdlWaitLookup lookup) { pdl_wait_ = std::move(lookup); }

  void add_stream(const v1::Stream& stream);
  void add_thread(const v1::HostThread& thread);
  // Declares the entities of a chunk (streams and threads).
  void add_entities(const v1::Chunk& chunk);

  // Why apply() cannot take this op (a thread or stream it names is not
  // defined), or empty when it can. Traces that pass `racetrack validate`
  // never fail this. Events need no definition: one never recorded orders
  // nothing.
  std::string cannot_apply(const v1::Op& op) const;
  // The same as a test, building no message (it runs for every op).
  bool can_apply(const v1::Op& op) const;
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
    // so an enqueue only merges a host clock that changed: the thread
    // that enqueued last, its count, and the other threads' counts.
    uint32_t host_agent = UINT32_MAX;
    uint64_t host_joins = 0;
    std::unordered_map<uint32_t, uint64_t> seen_host_joins;
    // A legacy default stream's op count; a blocking stream's count of its
    // device's legacy default stream when it last joined that clock.
    uint64_t legacy_ops = 0;
    uint64_t seen_legacy_ops = 0;
    uint64_t seen_barrier_version = 0;
    // A legacy default stream's: the blocking streams of its device (by
    // index), which it waits for at every op.
    std::vector<uint32_t> blocking_peers;
    PdlChain pdl;
    // A wait on a programmatic event was this stream's last op: the
    // record, for the next op if it is a kernel (rule 5a).
    std::shared_ptr<const ProgrammaticRecord> pending_dependent;
    ProgrammaticWaits programmatic_waits;
  };
  struct ThreadState {
    uint32_t agent = 0;
    VectorClock clock;
    uint64_t joins = 0;  // bumped whenever the clock learns from elsewhere
    ProgrammaticWaits programmatic_waits;
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
    // The last record was a kernel's programmatic event (rule 5a); `last`
    // is then its trigger clock.
    std::shared_ptr<const ProgrammaticRecord> programmatic;
    size_t entries() const;
  };

  bool thread_defined(const v1::Op& op) const;
  // A stream named where the op needs one (device ops, stream syncs and queries).
  bool stream_defined_if_needed(const v1::Op& op) const;
  StreamState& stream(uint32_t id);
  ThreadState& thread(uint32_t id);
  // The host joins a clock (a synchronisation).
  void host_join(ThreadState& t, const VectorClock& c);
  void host_join_device(ThreadState& t, int device);  // -1: every device
  // Waiting for a stream: the legacy default stream's wait covers the
  // earlier work of its device's blocking streams too.
  void host_join_stream(ThreadState& t, const StreamState& s);
  // A blocking peer copy (op on `s`) is serialised with all work of its
  // devices: it joins every stream of them, and their later work joins it.
  void join_devices(StreamState& s, const v1::Memcpy& copy);
  void publish_barrier(const StreamState& s, const v1::Memcpy& copy);
  // Enqueue rule and legacy default stream rule (before the op's tick).
  void prepare(StreamState& s, ThreadState& t);
  Epoch tick(StreamState& s);
  void record(uint32_t event, uint64_t sync_id, const VectorClock& clock);
  const VectorClock* record_for_wait(uint32_t event, uint64_t sync_id) const;
  const VectorClock* last_record(uint32_t event) const;
  // The event's last record when a kernel's programmatic event made it.
  const ProgrammaticRecord* programmatic_record(uint32_t event) const;
  void record_programmatic(const v1::Op& op, const StreamState& s, const OpOrder& order);
  // A stream wait, host sync or query that bound to a programmatic record.
  void note_programmatic_wait(ProgrammaticWaits& waits, const ProgrammaticRecord& r, const v1::Op& op,
                              uint32_t event);
  OpOrder apply_device(const v1::Op& op, ThreadState& t);
  void apply_host(const v1::Op& op, ThreadState& t);
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
  // Per device: its legacy default stream.
  std::unordered_map<uint32_t, uint32_t> legacy_stream_;
  // Per device: the clock of its last blocking peer copy, which every later
  // op on the device's streams joins, and how many there were.
  struct Barrier {
    VectorClock clock;
    uint64_t version = 0;
  };
  std::unordered_map<uint32_t, Barrier> barriers_;
  Assumptions assumptions_;
  PdlWaitLookup pdl_wait_;
  size_t max_clock_entries_, max_graph_entries_;
  size_t clock_entries_ = 0;
  std::string exceeded_;
};

}  // namespace racetrack::hb
