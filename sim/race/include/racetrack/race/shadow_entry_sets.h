// The sets of accesses the shadow memory's segments hold, pooled and shared:
// a segment names its set by a 32-bit id, so splitting a segment copies an
// id instead of its entries, and the segments one access rewrites from the
// same earlier set share the one set it becomes (docs/check.md, "Shadow
// memory").
#pragma once

#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <vector>

#include "racetrack/hb/vector_clock.h"

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

// Usually one or two entries: kept inline, no allocation per set.
using ShadowEntries = boost::container::small_vector<ShadowEntry, 3>;

// Reference-counted entry sets; id 0 is the empty set, which is never freed.
class ShadowEntrySets {
 public:
  static constexpr uint32_t kEmpty = 0;

  ShadowEntrySets() { sets_.emplace_back(); }

  const ShadowEntries& entries(uint32_t id) const { return sets_[id].entries; }
  // Whether more than one segment holds the set (else it may change in place).
  bool shared(uint32_t id) const { return sets_[id].refs > 1; }
  ShadowEntries& mutable_entries(uint32_t id) { return sets_[id].entries; }
  // A new set with no references yet; the caller adds one per segment.
  uint32_t make(ShadowEntries&& entries);
  void ref(uint32_t id) { ++sets_[id].refs; }
  void unref(uint32_t id) {
    if (id != kEmpty && --sets_[id].refs == 0) release(id);
  }
  // Whether two sets hold the same accesses.
  bool same(uint32_t a, uint32_t b) const { return a == b || sets_[a].entries == sets_[b].entries; }

  // Calls f(entries) for every set some segment holds.
  template <typename F>
  void for_each_live(F&& f) const {
    for (size_t id = 1; id < sets_.size(); ++id)
      if (sets_[id].refs) f(sets_[id].entries);
  }

 private:
  struct Set {
    ShadowEntries entries;
    uint32_t refs = 0;
  };
  void release(uint32_t id);

  std::vector<Set> sets_;
  std::vector<uint32_t> free_;
};

}  // namespace racetrack::race
