// The happens-before edges among the ops of a seq window as an explicit
// Boost.Graph DAG (vertices = ops, edges labelled by the rule that makes
// them), built on demand for questions the vector clocks answer only as
// yes/no: which chain orders two ops, whether a proposed edge would order
// them, and the transitive reduction for drawing arrows.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "racetrack/hb/assumptions.h"
#include "racetrack/traces/container.h"

namespace racetrack::hb {

enum class EdgeKind { kStream, kEvent, kHost, kLegacy, kGraph };
std::string_view edge_kind_name(EdgeKind kind);

struct HbEdge {
  uint64_t from_seq, to_seq;
  EdgeKind kind;
  bool operator==(const HbEdge&) const = default;
};

class HbGraph {
 public:
  // The DAG of the ops with from_seq <= seq <= to_seq. Paths between two ops
  // of the window never leave it (every edge goes forward in seq).
  static HbGraph build(const v1::Chunk& trace, uint64_t from_seq, uint64_t to_seq,
                       const Assumptions& assumptions = {});
  static Result<HbGraph> build_from_file(const std::string& path, uint64_t from_seq, uint64_t to_seq,
                                         const Assumptions& assumptions = {});

  bool contains(uint64_t seq) const { return index_.count(seq) > 0; }
  // A shortest chain of edges from a to b (empty when a does not
  // happen-before b).
  std::vector<HbEdge> chain(uint64_t a, uint64_t b) const;
  bool ordered(uint64_t a, uint64_t b) const { return a == b || !chain(a, b).empty(); }
  // Whether a -> b with one more edge from -> to.
  bool ordered_with(uint64_t a, uint64_t b, uint64_t extra_from, uint64_t extra_to) const;
  // The edges that remain when implied ones are dropped.
  std::vector<HbEdge> transitive_reduction() const;
  std::vector<HbEdge> edges() const;
  size_t vertex_count() const { return boost::num_vertices(graph_); }

 private:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                      boost::property<boost::edge_name_t, EdgeKind>>;
  using Vertex = Graph::vertex_descriptor;

  class Builder;
  std::optional<std::vector<Vertex>> search(Vertex from, Vertex to,
                                            std::optional<std::pair<Vertex, Vertex>> extra) const;

  Graph graph_;
  std::vector<uint64_t> seq_;  // by vertex
  std::unordered_map<uint64_t, Vertex> index_;
};

}  // namespace racetrack::hb
