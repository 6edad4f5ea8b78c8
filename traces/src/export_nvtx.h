// NVTX ranges, rebuilt from the range path every op carries
// ("fwd/layer3/attn"): per host thread, a range opens with the first op
// inside it and closes when an op outside it comes, spanning the host calls
// of the ops inside it. Ranges nest strictly, so each thread needs one
// track. Two back-to-back ranges with one path read as one (the trace keeps
// no push/pop).
//
// They come as opens and closes, written as they happen: a range and its
// first child start at one time, and only the order of the file says which
// holds the other.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "racetrack/traces/tables.h"

namespace racetrack::exporting {

struct NvtxOpen {
  uint32_t thread = 0;
  int64_t start_ns = 0;
  std::string name;  // the path's component at this depth
  std::string path;  // up to and including it
  uint64_t first_seq = 0;
};

struct NvtxClose {
  uint32_t thread = 0;
  int64_t end_ns = 0;  // closes the thread's innermost open range
};

// What one op changes: first the closes (innermost first), then the opens
// (outermost first).
struct NvtxChanges {
  std::vector<NvtxClose> closed;
  std::vector<NvtxOpen> opened;
};

class NvtxRanges {
 public:
  void add(const v1::Op& op, const TraceTables& tables, NvtxChanges& changes);
  // Closes every open range.
  void finish(NvtxChanges& changes);

 private:
  struct Open {
    std::string name;
    int64_t start_ns = 0, end_ns = 0;
    int64_t children_end = 0;  // end of its latest closed child
  };
  struct Thread {
    uint32_t path = 0;  // string id of the path of its latest op
    std::vector<Open> open;
    int64_t closed_end = 0;  // end of its latest closed outermost range
  };

  const std::vector<std::string>& components(uint32_t path, const TraceTables& tables);
  static void close_to(Thread& t, uint32_t thread, size_t depth, NvtxChanges& changes);

  std::unordered_map<uint32_t, Thread> threads_;
  std::unordered_map<uint32_t, std::vector<std::string>> components_;  // by path string id
};

}  // namespace racetrack::exporting
