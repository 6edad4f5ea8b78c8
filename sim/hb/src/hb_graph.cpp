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
    default: return "graph";
  }
}

// Adds the ops of the window one by one, with the edges of docs/ordering-rules.md.
// A device op's vertex is its execution; its thread's host chain continues
// from the last host point, except that a call that waits for device work
// (a sync, a blocking copy) makes that work part of the chain.
class HbGraph::Builder {
 public:
  Builder(HbGraph& g, uint64_t from, uint64_t to) : g_(g), from_(from), to_(to) {}

  void add_entities(const v1::Chunk& chunk) {
    for (const auto& s : chunk.streams()) streams_[s.id()] = {s.flags(), s.device()};
  }

  void add(const v1::Op& op) {
    if (op.seq() < from_ || op.seq() > to_) return;
    const Vertex v = boost::add_vertex(g_.graph_);
    g_.seq_.push_back(op.seq());
    g_.index_[op.seq()] = v;
    auto edge = [&](std::optional<Vertex> from, EdgeKind kind) {
      if (from && *from != v) boost::add_edge(*from, v, kind, g_.graph_);
    };
    std::optional<Vertex>& host = host_point_[op.thread()];
    edge(host, EdgeKind::kHost);  // program order, or enqueue for device ops

    if (is_device_op(op)) {
      const auto [flags, device] = streams_[op.stream()];
      edge(last_on_stream_[op.stream()], op.has_graph() ? EdgeKind::kGraph : EdgeKind::kStream);
      if (flags == v1::STREAM_LEGACY_DEFAULT) {
        for (const auto& [id, info] : streams_)
          if (id != op.stream() && info.second == device && blocking(info.first)) edge(last_on_stream_[id], EdgeKind::kLegacy);
        last_legacy_[device] = v;
      } else if (blocking(flags)) {
        edge(last_legacy_[device], EdgeKind::kLegacy);
      }
      if (op.has_wait()) edge(last_record_[op.wait().event()], EdgeKind::kEvent);
      if (op.has_record()) last_record_[op.record().event()] = v;
      last_on_stream_[op.stream()] = v;
      if (op.has_memcpy() && copy_waits(op.memcpy())) host = v;  // the call returns after the copy
      if (device_sync(op)) join_all(v);
      return;
    }
    switch (op.what_case()) {
      case v1::Op::kSync:
        if (op.sync().kind() == v1::SYNC_STREAM) edge(last_on_stream_[op.stream()], EdgeKind::kHost);
        if (op.sync().kind() == v1::SYNC_EVENT) edge(last_record_[op.sync().event()], EdgeKind::kEvent);
        if (op.sync().kind() == v1::SYNC_DEVICE) join_all(v);
        break;
      case v1::Op::kQuery:
        if (!op.query().ready()) break;
        if (op.query().kind() == v1::QUERY_STREAM) edge(last_on_stream_[op.stream()], EdgeKind::kHost);
        else edge(last_record_[op.query().event()], EdgeKind::kEvent);
        break;
      default:
        if (device_sync(op)) join_all(v);
        break;
    }
    host = v;
  }

 private:
  static bool blocking(v1::StreamFlags f) { return f == v1::STREAM_BLOCKING || f == v1::STREAM_PER_THREAD_DEFAULT; }
  static bool copy_waits(const v1::Memcpy& c) {
    auto host = [](v1::AddressSpace s) { return s == v1::SPACE_PINNED_HOST || s == v1::SPACE_PAGEABLE_HOST; };
    if (!c.async() || (host(c.src_space()) && host(c.dst_space()))) return true;
    return c.dst_space() == v1::SPACE_PAGEABLE_HOST && !host(c.src_space());
  }
  static bool device_sync(const v1::Op& op) {
    return (op.has_alloc() && op.alloc().device_sync()) || (op.has_free() && op.free().device_sync());
  }
  void join_all(Vertex v) {
    for (const auto& [id, last] : last_on_stream_)
      if (last && *last != v) boost::add_edge(*last, v, EdgeKind::kHost, g_.graph_);
  }

  HbGraph& g_;
  uint64_t from_, to_;
  std::map<uint32_t, std::pair<v1::StreamFlags, uint32_t>> streams_;
  std::map<uint32_t, std::optional<Vertex>> last_on_stream_, last_record_, host_point_, last_legacy_;
};

HbGraph HbGraph::build(const v1::Chunk& trace, uint64_t from_seq, uint64_t to_seq) {
  HbGraph g;
  Builder b(g, from_seq, to_seq);
  b.add_entities(trace);
  for (const auto& op : trace.ops()) b.add(op);
  return g;
}

Result<HbGraph> HbGraph::build_from_file(const std::string& path, uint64_t from_seq, uint64_t to_seq) {
  auto source = TraceSource::open(path);
  if (!source) return source.error();
  HbGraph g;
  Builder b(g, from_seq, to_seq);
  for (;;) {
    auto chunk = source->read();
    if (!chunk) return chunk.error();
    if (!*chunk) break;
    b.add_entities(**chunk);
    for (const auto& op : (*chunk)->ops()) {
      if (op.seq() > to_seq) return g;
      b.add(op);
    }
  }
  return g;
}

std::optional<std::vector<HbGraph::Vertex>> HbGraph::search(Vertex from, Vertex to,
                                                            std::optional<std::pair<Vertex, Vertex>> extra) const {
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
  boost::transitive_reduction(graph_, reduced, boost::make_iterator_property_map(to_reduced.begin(), boost::get(boost::vertex_index, graph_)),
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
