// Vector clocks over agents (streams, host threads), stored sparsely: only
// the agents a clock has learnt about take space, so a trace with thousands
// of streams that rarely meet keeps its clocks small.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace racetrack::hb {

using Tick = uint64_t;

// One point in one agent's history: the agent's `tick`-th op.
struct Epoch {
  uint32_t agent = 0;
  Tick tick = 0;
  bool operator==(const Epoch&) const = default;
};

class VectorClock {
 public:
  Tick get(uint32_t agent) const {
    const auto it = find(agent);
    return it != entries_.end() && it->agent == agent ? it->tick : 0;
  }
  void set(uint32_t agent, Tick t);
  void raise(uint32_t agent, Tick t) {
    if (t > get(agent)) set(agent, t);
  }
  Tick tick(uint32_t agent) {
    const Tick t = get(agent) + 1;
    set(agent, t);
    return t;
  }
  // Pointwise maximum; returns whether anything grew.
  bool join(const VectorClock& other);
  // Whether the op at `e` happens-before (or is) the point this clock describes.
  bool covers(Epoch e) const { return get(e.agent) >= e.tick; }
  // One past the highest agent with a tick (agents below it may have none).
  size_t size() const { return entries_.empty() ? 0 : entries_.back().agent + size_t{1}; }
  // Agents with a tick: what the clock takes in memory.
  size_t entries() const { return entries_.size(); }
  // Calls f(agent, tick) for every agent with a tick, in agent order.
  template <typename F>
  void for_each(F&& f) const {
    for (const Entry& e : entries_) f(e.agent, e.tick);
  }

 private:
  struct Entry {
    uint32_t agent;
    Tick tick;
  };
  // The entry of `agent`, or where it would go.
  std::vector<Entry>::const_iterator find(uint32_t agent) const {
    return std::lower_bound(entries_.begin(), entries_.end(), agent,
                            [](const Entry& e, uint32_t a) { return e.agent < a; });
  }

  std::vector<Entry> entries_;  // by agent, ticks > 0
};

}  // namespace racetrack::hb
