#include "oracle.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "racetrack/race/access.h"
#include "racetrack/traces/tables.h"

namespace racetrack::check_test {
namespace {

// Happens-before as a plain DAG: vertices are points (a host call, a device
// op, a graph node), edges are the orderings of docs/ordering-rules.md.
class Dag {
 public:
  int add_vertex() {
    out_.emplace_back();
    return static_cast<int>(out_.size() - 1);
  }
  void edge(int from, int to) {
    if (from >= 0 && to >= 0) out_[from].push_back(to);
  }
  // Reachability from every vertex by depth-first search (reflexive: a
  // point happens-before itself, as a vector clock covers its own epoch).
  void close() {
    const size_t n = out_.size();
    reach_.assign(n, std::vector<bool>(n, false));
    std::vector<int> stack;
    for (size_t from = 0; from < n; ++from) {
      std::vector<bool>& seen = reach_[from];
      stack.assign(1, static_cast<int>(from));
      seen[from] = true;
      while (!stack.empty()) {
        const int v = stack.back();
        stack.pop_back();
        for (int w : out_[v])
          if (!seen[w]) {
            seen[w] = true;
            stack.push_back(w);
          }
      }
    }
  }
  bool reaches(int from, int to) const { return reach_[from][to]; }

 private:
  std::vector<std::vector<int>> out_;
  std::vector<std::vector<bool>> reach_;
};

// Calls that run on their stream rather than on the calling thread.
bool runs_on_stream(const v1::Op& op) {
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

bool host_space(v1::AddressSpace s) {
  return s == v1::SPACE_PINNED_HOST || s == v1::SPACE_PAGEABLE_HOST;
}

// Rule 6: blocking copies, host-to-host copies and async D2H into pageable
// memory return only once the copy is done.
bool copy_joins_host(const v1::Memcpy& c) {
  if (!c.async()) return true;
  if (host_space(c.src_space()) && host_space(c.dst_space())) return true;
  return c.dst_space() == v1::SPACE_PAGEABLE_HOST && !host_space(c.src_space());
}

bool blocking_flags(v1::StreamFlags f) {
  return f == v1::STREAM_BLOCKING || f == v1::STREAM_PER_THREAD_DEFAULT;
}

enum class Actor { kCopy, kCompute, kHost };

struct Access {
  race::ResolvedAccess a;
  uint64_t seq = 0;
  int vertex = 0;
  Actor actor = Actor::kCompute;
};

// Copies and memsets are copies, host accesses the host, the rest compute.
// Graph nodes count as their launch (compute), as the checker has it:
// docs/check.md does not say whether a memcpy node is a copy.
Actor actor_of(const v1::Op& op) {
  if (op.has_memcpy() || op.has_memset()) return Actor::kCopy;
  return op.has_host_access() ? Actor::kHost : Actor::kCompute;
}

// docs/check.md: reuse when the accesses resolve to different regions and
// the first one's was freed before the second op; then host, copy, compute.
race::HazardClass classify(const Access& first, const Access& second,
                           const std::unordered_map<uint32_t, uint64_t>& freed_at) {
  if (first.a.region && second.a.region && first.a.region != second.a.region) {
    auto freed = freed_at.find(first.a.region);
    if (freed != freed_at.end() && freed->second < second.seq) return race::HazardClass::kReuse;
  }
  if (first.actor == Actor::kHost || second.actor == Actor::kHost) return race::HazardClass::kHostVsDevice;
  const int copies = (first.actor == Actor::kCopy) + (second.actor == Actor::kCopy);
  if (copies == 2) return race::HazardClass::kCopyVsCopy;
  return copies == 1 ? race::HazardClass::kCopyVsCompute : race::HazardClass::kComputeVsCompute;
}

// Builds the DAG op by op: a point for each host call, one for each device
// op (and graph node) it enqueues, and the edges of rules 1-9.
class OrderGraph {
 public:
  explicit OrderGraph(const v1::Chunk& trace) {
    for (const auto& s : trace.streams()) streams_[s.id()] = &s;
  }

  // Adds the op's points and edges; returns (host point, device point or
  // -1, graph node points).
  struct Points {
    int host = -1, device = -1;
    std::vector<int> nodes;
  };
  Points add(const v1::Op& op) {
    Points p;
    // Rule 2: host program order; rule 6: joins noted by earlier calls of
    // this thread (copies that return when done) land on this call.
    p.host = dag_.add_vertex();
    auto last = last_call_.find(op.thread());
    if (last != last_call_.end()) dag_.edge(last->second, p.host);
    last_call_[op.thread()] = p.host;
    for (int v : pending_joins_[op.thread()]) dag_.edge(v, p.host);
    pending_joins_[op.thread()].clear();

    if (runs_on_stream(op)) {
      add_device(op, p);
    } else {
      add_host_join(op, p.host);
    }
    return p;
  }

  Dag& dag() { return dag_; }

 private:
  int last_on(uint32_t stream) const {
    auto it = last_device_.find(stream);
    return it == last_device_.end() ? -1 : it->second;
  }
  int last_record(uint32_t event) const {
    auto it = last_record_.find(event);
    return it == last_record_.end() ? -1 : it->second;
  }
  // Every stream's latest device point (of one device, or of all: -1).
  std::vector<int> stream_tails(int device) const {
    std::vector<int> out;
    for (const auto& [id, s] : streams_)
      if (device < 0 || s->device() == static_cast<uint32_t>(device)) out.push_back(last_on(id));
    return out;
  }

  void add_device(const v1::Op& op, Points& p) {
    const v1::Stream& s = *streams_.at(op.stream());
    // The point where the op (or a graph's roots) may start.
    const int entry = dag_.add_vertex();
    dag_.edge(p.host, entry);                // rule 3: enqueue
    dag_.edge(last_on(op.stream()), entry);  // rule 1: stream order
    // Rule 7: the legacy default stream and the blocking streams.
    for (const auto& [id, other] : streams_) {
      if (id == op.stream() || other->device() != s.device()) continue;
      const bool legacy_after_blocking =
          s.flags() == v1::STREAM_LEGACY_DEFAULT && blocking_flags(other->flags());
      const bool blocking_after_legacy =
          blocking_flags(s.flags()) && other->flags() == v1::STREAM_LEGACY_DEFAULT;
      if (legacy_after_blocking || blocking_after_legacy) dag_.edge(last_on(id), entry);
    }
    // Rule 5: the wait binds to the latest record issued before it.
    if (op.has_wait()) dag_.edge(last_record(op.wait().event()), entry);

    if (op.has_graph()) {
      // Rule 9: nodes follow the edges; roots start after the stream's
      // earlier work; the launch completes after every node.
      const auto& nodes = op.graph().nodes();
      for (int i = 0; i < nodes.size(); ++i) {
        const int v = dag_.add_vertex();
        p.nodes.push_back(v);
        dag_.edge(entry, v);
        for (uint32_t dep : nodes[i].deps())
          if (dep < p.nodes.size()) dag_.edge(p.nodes[dep], v);
      }
      p.device = dag_.add_vertex();
      for (int v : p.nodes) dag_.edge(v, p.device);
    } else {
      p.device = entry;
    }
    last_device_[op.stream()] = p.device;
    if (op.has_record()) last_record_[op.record().event()] = p.device;  // rule 4

    // Rule 6 for calls that return only when the device is done.
    std::vector<int>& joins = pending_joins_[op.thread()];
    if (op.has_memcpy() && copy_joins_host(op.memcpy())) joins.push_back(p.device);
    if ((op.has_alloc() && op.alloc().device_sync()) || (op.has_free() && op.free().device_sync()))
      for (int v : stream_tails(-1)) joins.push_back(v);
  }

  void add_host_join(const v1::Op& op, int host) {
    switch (op.what_case()) {
      case v1::Op::kSync:
        if (op.sync().kind() == v1::SYNC_STREAM) dag_.edge(last_on(op.stream()), host);
        if (op.sync().kind() == v1::SYNC_EVENT) dag_.edge(last_record(op.sync().event()), host);
        if (op.sync().kind() == v1::SYNC_DEVICE)
          for (int v : stream_tails(static_cast<int>(op.sync().device()))) dag_.edge(v, host);
        break;
      case v1::Op::kQuery:
        if (!op.query().ready()) break;  // cudaErrorNotReady: no join
        if (op.query().kind() == v1::QUERY_STREAM)
          dag_.edge(last_on(op.stream()), host);
        else
          dag_.edge(last_record(op.query().event()), host);
        break;
      case v1::Op::kAlloc:
        if (op.alloc().device_sync())
          for (int v : stream_tails(-1)) dag_.edge(v, host);
        break;
      case v1::Op::kFree:
        if (op.free().device_sync())
          for (int v : stream_tails(-1)) dag_.edge(v, host);
        break;
      default: break;
    }
  }

  Dag dag_;
  std::map<uint32_t, const v1::Stream*> streams_;
  std::unordered_map<uint32_t, int> last_call_;    // thread -> latest call
  std::unordered_map<uint32_t, int> last_device_;  // stream -> latest device op
  std::unordered_map<uint32_t, int> last_record_;  // event -> latest record
  std::unordered_map<uint32_t, std::vector<int>> pending_joins_;
};

}  // namespace

HazardSet oracle_hazards(const v1::Chunk& trace) {
  // Happens-before and the accesses, op by op in submission order.
  OrderGraph order(trace);
  TraceTables tables;
  tables.add(trace);
  race::AccessResolver resolver;  // byte ranges only, not ordering
  resolver.add_entities(trace, tables);
  std::vector<Access> accesses;
  std::vector<race::ResolvedAccess> resolved;
  std::unordered_map<uint32_t, uint64_t> freed_at;  // region -> seq of its free
  for (const v1::Op& op : trace.ops()) {
    const OrderGraph::Points p = order.add(op);
    if (op.has_free()) freed_at.emplace(op.free().region(), op.seq());
    resolver.on_op(op);
    resolver.resolve(op, resolved);
    for (const race::ResolvedAccess& a : resolved) {
      int vertex = p.device >= 0 ? p.device : p.host;
      if (a.node) vertex = p.nodes.at(a.node - 1);
      accesses.push_back({a, op.seq(), vertex, actor_of(op)});
    }
  }
  Dag& dag = order.dag();
  dag.close();

  // The definition, byte by byte. Bytes between consecutive access
  // boundaries of one space are touched by the same accesses, so one
  // evaluation per such interval stands for each of its bytes.
  std::map<race::SpaceKey, std::vector<uint64_t>> bounds;
  for (const Access& x : accesses) {
    bounds[x.a.space].push_back(x.a.lo);
    bounds[x.a.space].push_back(x.a.hi);
  }
  std::map<std::pair<size_t, size_t>, std::pair<uint64_t, uint64_t>> hull;
  std::vector<size_t> touching;
  for (auto& [space, b] : bounds) {
    std::sort(b.begin(), b.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    for (size_t k = 0; k + 1 < b.size(); ++k) {
      const uint64_t lo = b[k], hi = b[k + 1];
      touching.clear();
      for (size_t i = 0; i < accesses.size(); ++i) {
        const race::ResolvedAccess& a = accesses[i].a;
        if (a.space == space && a.lo <= lo && hi <= a.hi) touching.push_back(i);
      }
      for (size_t p = 0; p < touching.size(); ++p) {
        const Access& first = accesses[touching[p]];
        for (size_t q = p + 1; q < touching.size(); ++q) {
          const Access& second = accesses[touching[q]];
          const bool ordered = dag.reaches(first.vertex, second.vertex);
          if ((first.a.writes || second.a.writes) && !ordered) {
            auto [it, added] = hull.try_emplace({touching[p], touching[q]}, lo, hi);
            if (!added) {
              it->second.first = std::min(it->second.first, lo);
              it->second.second = std::max(it->second.second, hi);
            }
          }
          // `second` supersedes `first` for every later access.
          if (ordered && (second.a.writes || !first.a.writes)) break;
        }
      }
    }
  }

  HazardSet out;
  for (const auto& [pair, range] : hull) {
    const Access& first = accesses[pair.first];
    const Access& second = accesses[pair.second];
    const race::HazardKey key{first.seq,      second.seq,   first.a.index,
                              second.a.index, first.a.node, second.a.node};
    out.insert({key, race::hazard_kind(first.a, second.a), range.first, range.second,
                classify(first, second, freed_at)});
  }
  return out;
}

}  // namespace racetrack::check_test
