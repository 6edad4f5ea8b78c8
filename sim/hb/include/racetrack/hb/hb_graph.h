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
#include "racetrack/hb/pdl.h"
#include "racetrack/traces/container.h"
#include "racetrack/traces/tables.h"

namespace racetrack::hb {

// kProgrammatic: a PDL secondary's grid-dependency wait (rule 1a).
enum class EdgeKind { kStream, kEvent, kHost, kLegacy, kGraph, kProgrammatic };
std::string_view edge_kind_name(EdgeKind kind);

struct HbEdge {
  uint64_t from_seq, to_seq;
  EdgeKind kind;
  bool operator==(const HbEdge&) const = default;
};

// Where rule 1a's facts (does a kernel's machine code wait for its grid
// dependencies?) come from for a graph read from a file: each chunk is
// handed over before its ops, for the modules it carries.
class PdlWaitSource {
 public:
  virtual ~PdlWaitSource() = default;
  virtual void add_chunk(const v1::Chunk& chunk, const TraceTables& tables) = 0;
  virtual PdlWait wait(const v1::Kernel& kernel, const TraceTables& tables) const = 0;
};

class HbGraph {
 public:
  // The DAG of the ops with from_seq <= seq <= to_seq. Paths between two ops
  // of the window never leave it (every edge goes forward in seq). Without
  // PDL facts every PDL secondary's code counts as unknown (not waiting).
  static HbGraph build(const v1::Chunk& trace, uint64_t from_seq, uint64_t to_seq,
                       const Assumptions& assumptions = {}, const PdlWaitLookup& pdl = {});
  static Result<HbGraph> build_from_file(const std::string& path, uint64_t from_seq, uint64_t to_seq,
                                         const Assumptions& assumptions = {}, PdlWaitSource* pdl = nullptr);

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
