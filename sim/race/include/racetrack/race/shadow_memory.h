// Shadow state over byte ranges, one non-overlapping range map per address
// space. Each segment holds the accesses that later accesses must still be
// checked against: an access leaves a segment once a later access to it is
// ordered after it and supersedes it (any write supersedes; a read
// supersedes earlier plain reads). Segments with equal state merge, so after
// ordered writes a buffer is one segment again.
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "racetrack/hb/vector_clock.h"
#include "racetrack/race/hazard.h"

namespace racetrack::race {

// What the shadow memory remembers of an access.
struct ShadowEntry {
  hb::Epoch epoch;
  uint32_t side;  // index into the checker's side table
  bool reads, writes;

  bool operator==(const ShadowEntry& o) const {
    return epoch.agent == o.epoch.agent && epoch.tick == o.epoch.tick && side == o.side;
  }
};

class ShadowMemory {
 public:
  // Called for each earlier entry that conflicts with the access and is not
  // ordered before it, with the overlapping bytes of one segment.
  using ConflictFn = std::function<void(const ShadowEntry& earlier, uint64_t lo, uint64_t hi)>;

  // Checks `access` (made at `epoch`, with `clock` = everything its op is
  // ordered after) against the state, reports conflicts, and records it.
  void access(SpaceKey space, uint64_t lo, uint64_t hi, const ShadowEntry& entry, const hb::VectorClock& clock,
              const ConflictFn& on_conflict);

  size_t segment_count() const;
  // Entries still held, for tests and memory accounting.
  size_t entry_count() const;
  // Every side index still referenced (to recycle the others).
  void referenced_sides(std::vector<bool>& used) const;

 private:
  struct Segment {
    uint64_t hi;
    std::vector<ShadowEntry> entries;
  };
  using Map = std::map<uint64_t, Segment>;

  // Splits so that a segment boundary falls at `at` (if inside a segment).
  static void split(Map& map, uint64_t at);

  std::map<SpaceKey, Map> spaces_;
};

}  // namespace racetrack::race
