// Maps (stream or thread, tick) to the op at that point of its history, for
// the explanation "ordered ... only up to #X" (docs/check.md, "Explanations").
// Ticks count the trace's own ops as happens-before does: every op ticks its
// thread, a device op also its stream.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "racetrack/race/hazard.h"
#include "racetrack/traces/tables.h"

namespace racetrack::race {

class TickMap {
 public:
  // Asks for the op at `tick` of the side's stream or thread; false when
  // note() has already passed it.
  bool want(const HazardSide& side, uint64_t tick);
  // Every op of the trace, in submission order.
  void note(const v1::Op& op, const TraceTables& tables);
  // The op found at a wanted point: its seq and title.
  const std::pair<uint64_t, std::string>* find(const HazardSide& side, uint64_t tick) const;

 private:
  // Streams and threads in one key space.
  static uint64_t key(uint32_t stream, uint32_t thread) {
    return stream ? stream : (uint64_t{1} << 32) | thread;
  }
  struct Agent {
    uint64_t ticks = 0;
    std::set<uint64_t> wanted;
  };
  // Ids are dense from 1 (validated): tables, not hash maps, since every op
  // passes here.
  Agent& agent(std::vector<Agent>& agents, uint32_t id) {
    if (id >= agents.size()) agents.resize(id + 1);
    return agents[id];
  }
  void note_point(Agent& a, uint64_t key, const v1::Op& op, const TraceTables& tables);

  std::vector<Agent> streams_, threads_;
  std::map<std::pair<uint64_t, uint64_t>, std::pair<uint64_t, std::string>> found_;
};

}  // namespace racetrack::race
