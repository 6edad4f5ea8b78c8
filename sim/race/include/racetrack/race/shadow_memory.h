// Shadow state over byte ranges, one non-overlapping range map per address
// space. Each segment holds the accesses that later accesses must still be
// checked against: an access leaves a segment once a later access to it is
// ordered after it and supersedes it (any write supersedes; a read
// supersedes earlier plain reads). Segments with equal state merge, so after
// ordered writes a buffer is one segment again.
#pragma once

#include <boost/container/small_vector.hpp>
#include <map>
#include <vector>

#include "racetrack/hb/happens_before.h"
#include "racetrack/race/hazard.h"

namespace racetrack::race {

// What the shadow memory remembers of an access: its op's (or graph node's)
// point in happens-before and its side. Fields in this order keep it at 24
// bytes.
struct ShadowEntry {
  uint32_t agent;
  uint32_t side;  // index into the checker's side table
  hb::Tick tick;
  uint32_t node;  // graph node position + 1, 0 outside graphs
  bool reads, writes;

  ShadowEntry(hb::Epoch epoch, uint32_t node_, uint32_t side_, bool reads_, bool writes_)
      : agent(epoch.agent), side(side_), tick(epoch.tick), node(node_), reads(reads_), writes(writes_) {}
  hb::Epoch epoch() const { return {agent, tick}; }
  bool operator==(const ShadowEntry& o) const { return agent == o.agent && tick == o.tick && side == o.side; }
};

// An earlier access that conflicts with a new one and is not ordered before
// it, with the bytes of one segment they share.
struct Conflict {
  uint32_t side;
  uint64_t lo, hi;
  bool operator<(const Conflict& o) const { return side < o.side || (side == o.side && lo < o.lo); }
};

class ShadowMemory {
 public:
  // Checks an access (`entry`, whose op or graph node has `order`) against
  // the state, appends its conflicts to `conflicts`, and records it.
  void access(SpaceKey space, uint64_t lo, uint64_t hi, const ShadowEntry& entry, const hb::OpOrder& order,
              std::vector<Conflict>& conflicts);

  size_t segment_count() const;
  // Entries still held, for tests and memory accounting.
  size_t entry_count() const;
  // Every side index still referenced (to recycle the others).
  void referenced_sides(std::vector<bool>& used) const;

 private:
  struct Segment {
    uint64_t hi;
    // Usually one or two entries: kept inline, no allocation per segment.
    boost::container::small_vector<ShadowEntry, 3> entries;
  };
  using Map = std::map<uint64_t, Segment>;

  Map& space(SpaceKey key);
  // Splits so that a segment boundary falls at `at` (if inside a segment);
  // returns the first segment starting at or after `at`.
  static Map::iterator split(Map& map, uint64_t at);

  std::map<SpaceKey, Map> spaces_;
  SpaceKey last_space_ = 0;  // a one-entry cache: accesses come in runs per space
  Map* last_map_ = nullptr;
};

}  // namespace racetrack::race
