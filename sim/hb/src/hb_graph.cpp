#include "racetrack/hb/hb_graph.h"

#include <boost/graph/transitive_reduction.hpp>
#include <deque>
#include <map>

#include "racetrack/hb/happens_before.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::hb {

std::string_view edge_kind_name(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::kStream: return "stream order";
    case EdgeKind::kEvent: return "event";
    case EdgeKind::kHost: return "host";
    case EdgeKind::kLegacy: return "legacy default stream";
    case EdgeKind::kProgrammatic: return "grid-dependency wait (PDL)";
    default: return "graph";
  }
}

// Adds the ops of the window one by one, with the edges of docs/ordering-rules.md.
// A device op's vertex is its execution; its thread's host chain continues
// from the last host point, except that a call that waits for device work
// (a sync, a blocking copy) makes that work part of the chain.
class HbGraph::Builder {
 public:
  // Rule 1a needs what the vector clocks know (whether the launching thread
  // already saw the primary complete), so they run alongside from the
  // trace's first op.
  Builder(HbGraph& g, uint64_t from, uint64_t to, const Assumptions& assume, const PdlWaitLookup& pdl)
      : g_(g), from_(from), to_(to), assume_(assume), clocks_(assume), pdl_(pdl) {
    clocks_.set_pdl_wait_lookup(pdl);
  }

  void add_entities(const v1::Chunk& chunk) {
    for (const auto& s : chunk.streams()) streams_[s.id()] = {s.flags(), s.device()};
    clocks_.add_entities(chunk);
  }

  void add(const v1::Op& op) {
    PdlUnordered pdl;
    uint64_t tick = 0;
    if (clocks_.cannot_apply(op).empty()) {
      const OpOrder order = clocks_.apply(op);
      pdl = order.pdl;
      tick = order.epoch.tick;
    }
    if (op.seq() < from_ || op.seq() > to_) return;
    const Vertex v = boost::add_vertex(g_.graph_);
    g_.seq_.push_back(op.seq());
    g_.index_[op.seq()] = v;
    auto edge = [&](std::optional<Vertex> from, EdgeKind kind) {
      if (from && *from != v) boost::add_edge(*from, v, kind, g_.graph_);
    };
    std::optional<Vertex>& host = host_point_[op.thread()];
    edge(host, EdgeKind::kHost);  // program order, or enqueue for device ops
    // What a staged copy of this thread waited for, until a later host
    // point carries it.
    std::vector<Vertex>& staged = staged_joins_[op.thread()];
    for (Vertex w : staged) edge(w, EdgeKind::kHost);

    if (is_device_op(op)) {
      const auto [flags, device] = streams_[op.stream()];
      const CopyJoin copy = op.has_memcpy() ? copy_join(op.memcpy(), assume_) : CopyJoin::kNone;
      if (copy == CopyJoin::kStaged)
        for (Vertex w : stream_tails_seen_by_sync(op.stream())) staged.push_back(w);
      add_stream_edges(op, v, pdl, tick);
      add_dependent_edge(op, v);
      if (flags == v1::STREAM_LEGACY_DEFAULT) {
        for (const auto& [id, info] : streams_)
          if (id != op.stream() && info.second == device && blocking(info.first))
            edge(last_on_stream_[id], EdgeKind::kLegacy);
        last_legacy_[device] = v;
      } else if (blocking(flags)) {
        edge(last_legacy_[device], EdgeKind::kLegacy);
      }
      edge(last_barrier_[device], EdgeKind::kStream);  // a blocking peer copy before it
      if (op.has_wait()) {
        edge(last_record_[op.wait().event()], EdgeKind::kEvent);
        if (const ProgrammaticTrigger* p = programmatic(op.wait().event())) {
          for (Vertex w : p->sources) edge(w, EdgeKind::kEvent);
          pending_dependent_[op.stream()] = p->kernel;
        }
      }
      if (op.has_memcpy() && is_blocking_peer_copy(op.memcpy())) {
        const auto& c = op.memcpy();
        for (const auto& [id, info] : streams_)
          if (info.second == device || info.second == c.src_device() || info.second == c.dst_device())
            edge(last_on_stream_[id], EdgeKind::kStream);
        for (uint32_t d : {device, c.src_device(), c.dst_device()}) last_barrier_[d] = v;
      }
      if (op.has_record()) {
        last_record_[op.record().event()] = v;
        programmatic_.erase(op.record().event());
      }
      if (op.has_kernel() && op.kernel().programmatic_event()) {
        // Rule 5a: waiters follow what the kernel's trigger follows.
        last_record_[op.kernel().programmatic_event()].reset();
        programmatic_[op.kernel().programmatic_event()] = {v, trigger_sources(op.stream(), pdl, tick)};
      }
      last_on_stream_[op.stream()] = v;
      last_was_kernel_[op.stream()] = op.has_kernel();
      // The call returns after the copy or memset.
      if (copy == CopyJoin::kJoin || (op.has_memset() && memset_joins_host(op.memset()))) {
        host = v;
        staged.clear();
      }
      if (call_syncs_device(op, assume_)) join_all(v);
      return;
    }
    switch (op.what_case()) {
      case v1::Op::kSync:
        if (op.sync().kind() == v1::SYNC_STREAM)
          for (Vertex w : stream_tails_seen_by_sync(op.stream())) edge(w, EdgeKind::kHost);
        if (op.sync().kind() == v1::SYNC_EVENT) {
          edge(last_record_[op.sync().event()], EdgeKind::kEvent);
          if (const ProgrammaticTrigger* p = programmatic(op.sync().event()))
            for (Vertex w : p->sources) edge(w, EdgeKind::kEvent);
        }
        if (op.sync().kind() == v1::SYNC_DEVICE) join_all(v);
        break;
      case v1::Op::kQuery:
        if (!op.query().ready()) break;
        if (op.query().kind() == v1::QUERY_STREAM) {
          for (Vertex w : stream_tails_seen_by_sync(op.stream())) edge(w, EdgeKind::kHost);
        } else {
          edge(last_record_[op.query().event()], EdgeKind::kEvent);
          if (const ProgrammaticTrigger* p = programmatic(op.query().event()))
            for (Vertex w : p->sources) edge(w, EdgeKind::kEvent);
        }
        break;
      default:
        if (call_syncs_device(op, assume_)) join_all(v);
        break;
    }
    host = v;
    staged.clear();
  }

 private:
  static bool blocking(v1::StreamFlags f) {
    return f == v1::STREAM_BLOCKING || f == v1::STREAM_PER_THREAD_DEFAULT;
  }
  // Stream order (rule 1), or rule 1a for a PDL secondary: it follows its
  // primary only through a grid-dependency wait, and otherwise only the
  // stream's work before what it overlaps; the op after it follows all of
  // them again. Each op reaches every earlier op of its stream except those
  // it overlaps, so an edge from an op and from what it overlapped covers
  // all of the stream's work up to that op.
  void add_stream_edges(const v1::Op& op, Vertex v, const PdlUnordered& pdl, uint64_t tick) {
    const uint32_t stream = op.stream();
    auto edge = [&](Vertex from, EdgeKind kind) {
      if (from != v) boost::add_edge(from, v, kind, g_.graph_);
    };
    auto edges_from = [&](const StreamOp& earlier, EdgeKind kind) {
      edge(earlier.vertex, kind);
      for (Vertex w : earlier.overlapped) edge(w, EdgeKind::kStream);
    };
    if (!tick) {  // an op the clocks refused (only in an unvalidated trace): plain stream order
      if (auto last = last_on_stream_[stream]) edge(*last, EdgeKind::kStream);
      return;
    }
    const StreamOp* last = op_at(stream, tick - 1);
    StreamOp self{v, {}};
    if (pdl.empty()) {
      const bool waits = op.has_kernel() && op.kernel().programmatic_stream_serialization() &&
                         last_was_kernel_[stream] && pdl_ && pdl_(op.kernel()) == PdlWait::kWaits;
      if (last)
        edges_from(*last, op.has_graph() ? EdgeKind::kGraph
                          : waits        ? EdgeKind::kProgrammatic
                                         : EdgeKind::kStream);
    } else {
      if (pdl.wait == PdlWait::kWaits) {
        if (last) edge(last->vertex, EdgeKind::kProgrammatic);
      } else if (const StreamOp* before = op_at(stream, pdl.lo - 1)) {
        edges_from(*before, EdgeKind::kStream);
      }
      for (uint64_t t = pdl.lo; t <= pdl.hi; ++t)
        if (const StreamOp* w = op_at(stream, t)) self.overlapped.push_back(w->vertex);
    }
    by_tick_[stream][tick] = std::move(self);
  }
  // Rule 5a: a kernel's programmatic event, and the ops its trigger follows
  // (those the kernel's own stream edges come from).
  struct ProgrammaticTrigger {
    Vertex kernel;
    std::vector<Vertex> sources;
  };
  const ProgrammaticTrigger* programmatic(uint32_t event) const {
    auto it = programmatic_.find(event);
    return it == programmatic_.end() ? nullptr : &it->second;
  }
  std::vector<Vertex> trigger_sources(uint32_t stream, const PdlUnordered& pdl, uint64_t tick) const {
    std::vector<Vertex> out;
    if (!tick) return out;
    if (const StreamOp* before = op_at(stream, pdl.empty() ? tick - 1 : pdl.lo - 1)) {
      out.push_back(before->vertex);
      out.insert(out.end(), before->overlapped.begin(), before->overlapped.end());
    }
    return out;
  }
  // The kernel right after a wait on a programmatic event follows the
  // kernel through its grid-dependency wait, before every access.
  void add_dependent_edge(const v1::Op& op, Vertex v) {
    auto it = pending_dependent_.find(op.stream());
    if (it == pending_dependent_.end()) return;
    const Vertex kernel = it->second;
    pending_dependent_.erase(it);
    if (op.has_kernel() && pdl_ && pdl_(op.kernel()) == PdlWait::kWaits && kernel != v)
      boost::add_edge(kernel, v, EdgeKind::kProgrammatic, g_.graph_);
  }
  struct StreamOp {
    Vertex vertex;
    std::vector<Vertex> overlapped;  // earlier ops of its stream it is not ordered after (rule 1a)
  };
  const StreamOp* op_at(uint32_t stream, uint64_t tick) const {
    auto s = by_tick_.find(stream);
    if (!tick || s == by_tick_.end()) return nullptr;
    auto it = s->second.find(tick);
    return it == s->second.end() ? nullptr : &it->second;
  }
  // The ops a wait for a stream's completed work covers: its last, and
  // whatever that one (a PDL secondary) overlapped.
  void add_tails(uint32_t stream, std::vector<Vertex>& out) {
    if (auto last = last_on_stream_[stream]) out.push_back(*last);
    auto s = by_tick_.find(stream);
    if (s != by_tick_.end() && !s->second.empty())
      for (Vertex w : s->second.rbegin()->second.overlapped) out.push_back(w);
  }
  // The last ops a wait for `stream` covers: its own, and for the legacy
  // default stream those of its device's blocking streams.
  std::vector<Vertex> stream_tails_seen_by_sync(uint32_t stream) {
    std::vector<Vertex> out;
    add_tails(stream, out);
    const auto [flags, device] = streams_[stream];
    if (flags != v1::STREAM_LEGACY_DEFAULT) return out;
    for (const auto& [id, info] : streams_)
      if (id != stream && info.second == device && blocking(info.first)) add_tails(id, out);
    return out;
  }
  void join_all(Vertex v) {
    std::vector<Vertex> tails;
    for (const auto& [id, last] : last_on_stream_) add_tails(id, tails);
    for (Vertex w : tails)
      if (w != v) boost::add_edge(w, v, EdgeKind::kHost, g_.graph_);
  }

  HbGraph& g_;
  uint64_t from_, to_;
  Assumptions assume_;
  std::map<uint32_t, std::pair<v1::StreamFlags, uint32_t>> streams_;
  std::map<uint32_t, std::optional<Vertex>> last_on_stream_, last_record_, host_point_, last_legacy_,
      last_barrier_;
  std::map<uint32_t, std::vector<Vertex>> staged_joins_;  // thread -> what its last staged copy waited for
  HappensBefore clocks_;
  PdlWaitLookup pdl_;
  std::map<uint32_t, std::map<uint64_t, StreamOp>> by_tick_;  // stream -> its ops in the window by tick
  std::map<uint32_t, bool> last_was_kernel_;
  std::map<uint32_t, ProgrammaticTrigger> programmatic_;  // by event: its last record, when programmatic
  std::map<uint32_t, Vertex> pending_dependent_;          // stream -> kernel its last op (a wait) waited on
};

HbGraph HbGraph::build(const v1::Chunk& trace, uint64_t from_seq, uint64_t to_seq,
                       const Assumptions& assumptions, const PdlWaitLookup& pdl) {
  HbGraph g;
  Builder b(g, from_seq, to_seq, assumptions, pdl);
  b.add_entities(trace);
  for (const auto& op : trace.ops()) b.add(op);
  return g;
}

Result<HbGraph> HbGraph::build_from_file(const std::string& path, uint64_t from_seq, uint64_t to_seq,
                                         const Assumptions& assumptions, PdlWaitSource* pdl) {
  auto source = TraceSource::open(path);
  if (!source) return source.error();
  HbGraph g;
  TraceTables tables;
  PdlWaitLookup lookup;
  if (pdl) lookup = [pdl, &tables](const v1::Kernel& k) { return pdl->wait(k, tables); };
  Builder b(g, from_seq, to_seq, assumptions, lookup);
  for (;;) {
    auto chunk = source->read();
    if (!chunk) return chunk.error();
    if (!*chunk) break;
    tables.add(**chunk);
    if (pdl) pdl->add_chunk(**chunk, tables);
    b.add_entities(**chunk);
    for (const auto& op : (*chunk)->ops()) {
      if (op.seq() > to_seq) return g;
      b.add(op);
    }
  }
  return g;
}

std::optional<std::vector<HbGraph::Vertex>> HbGraph::search(
    Vertex from, Vertex to, std::optional<std::pair<Vertex, Vertex>> extra) const {
  // Breadth-first over out-edges (every edge goes forward, so the search
  // never passes `to`'s position in seq order).
  std::vector<Vertex> parent(boost::num_vertices(graph_), boost::graph_traits<Graph>::null_vertex());
  std::deque<Vertex> queue{from};
  parent[from] = from;
  auto visit = [&](Vertex u, Vertex w) {
    if (parent[w] != boost::graph_traits<Graph>::null_vertex()) return;
    parent[w] = u;
    queue.push_back(w);
  };
  while (!queue.empty()) {
    const Vertex u = queue.front();
    queue.pop_front();
    if (u == to) break;
    for (auto [e, end] = boost::out_edges(u, graph_); e != end; ++e) visit(u, boost::target(*e, graph_));
    if (extra && extra->first == u) visit(u, extra->second);
  }
  if (parent[to] == boost::graph_traits<Graph>::null_vertex()) return std::nullopt;
  std::vector<Vertex> path{to};
  while (path.back() != from) path.push_back(parent[path.back()]);
  return std::vector<Vertex>(path.rbegin(), path.rend());
}

std::vector<HbEdge> HbGraph::chain(uint64_t a, uint64_t b) const {
  auto ia = index_.find(a), ib = index_.find(b);
  if (ia == index_.end() || ib == index_.end() || a == b) return {};
  auto path = search(ia->second, ib->second, std::nullopt);
  std::vector<HbEdge> out;
  if (!path) return out;
  const auto names = boost::get(boost::edge_name, graph_);
  for (size_t i = 0; i + 1 < path->size(); ++i) {
    auto [e, found] = boost::edge((*path)[i], (*path)[i + 1], graph_);
    out.push_back({seq_[(*path)[i]], seq_[(*path)[i + 1]], found ? names[e] : EdgeKind::kEvent});
  }
  return out;
}

bool HbGraph::ordered_with(uint64_t a, uint64_t b, uint64_t extra_from, uint64_t extra_to) const {
  auto ia = index_.find(a), ib = index_.find(b), ef = index_.find(extra_from), et = index_.find(extra_to);
  if (ia == index_.end() || ib == index_.end()) return false;
  std::optional<std::pair<Vertex, Vertex>> extra;
  if (ef != index_.end() && et != index_.end()) extra = std::make_pair(ef->second, et->second);
  return search(ia->second, ib->second, extra).has_value();
}

std::vector<HbEdge> HbGraph::edges() const {
  std::vector<HbEdge> out;
  const auto names = boost::get(boost::edge_name, graph_);
  // Per vertex, not boost::edges(): GCC 12 warns inside Boost's edge iterator.
  for (Vertex u = 0; u < boost::num_vertices(graph_); ++u)
    for (auto [e, end] = boost::out_edges(u, graph_); e != end; ++e)
      out.push_back({seq_[u], seq_[boost::target(*e, graph_)], names[*e]});
  return out;
}

std::vector<HbEdge> HbGraph::transitive_reduction() const {
  if (boost::num_vertices(graph_) == 0) return {};  // Boost indexes its first vertex regardless
  boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS> reduced;
  std::vector<size_t> to_reduced(boost::num_vertices(graph_));
  boost::transitive_reduction(
      graph_, reduced,
      boost::make_iterator_property_map(to_reduced.begin(), boost::get(boost::vertex_index, graph_)),
      boost::get(boost::vertex_index, graph_));
  std::vector<Vertex> from_reduced(boost::num_vertices(graph_));
  for (Vertex v = 0; v < to_reduced.size(); ++v) from_reduced[to_reduced[v]] = v;
  const auto names = boost::get(boost::edge_name, graph_);
  std::vector<HbEdge> out;
  for (size_t r = 0; r < boost::num_vertices(reduced); ++r)
    for (auto [e, end] = boost::out_edges(r, reduced); e != end; ++e) {
      const Vertex u = from_reduced[r], w = from_reduced[boost::target(*e, reduced)];
      auto [orig, found] = boost::edge(u, w, graph_);
      out.push_back({seq_[u], seq_[w], found ? names[orig] : EdgeKind::kStream});
    }
  return out;
}

}  // namespace racetrack::hb
