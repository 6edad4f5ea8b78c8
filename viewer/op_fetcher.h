// Fetches what the timeline does not keep: the whole op for a seq, read
// back from its chunk (binary files seek through the model's chunk index;
// text and JSON files are parsed once and kept), and the happens-before
// edges into and out of it.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "racetrack/hb/hb_graph.h"
#include "trace_model.h"

namespace racetrack::viewer {

// One direct happens-before edge of an op, with the op at its other end.
struct OrderNeighbour {
  v1::Op op;
  hb::EdgeKind kind = hb::EdgeKind::kStream;
};

struct OrderNeighbours {
  std::vector<OrderNeighbour> after;           // ops this one is ordered after
  std::vector<OrderNeighbour> before;          // ops ordered after this one
  uint64_t window_first = 0, window_last = 0;  // the seqs searched
};

class OpFetcher {
 public:
  explicit OpFetcher(const TraceModel& model);
  ~OpFetcher();

  Result<v1::Op> op(uint64_t seq);
  // Edges within the ops around `seq` in its chunk (kWindow each side):
  // stream order, events, host synchronisation.
  Result<OrderNeighbours> neighbours(uint64_t seq);

  static constexpr int kWindow = 256;

 private:
  // Loads the chunk holding `seq`; returns the op's position in it.
  Result<int> locate(uint64_t seq);

  const TraceModel& model_;
  std::optional<ChunkReader> reader_;
  v1::Chunk chunk_;
  std::optional<size_t> cached_;  // index in model.chunks() of chunk_
};

}  // namespace racetrack::viewer
