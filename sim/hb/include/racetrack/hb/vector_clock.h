// Vector clocks over agents (streams, host threads), stored sparsely: only
// the agents a clock has learnt about take space, so a trace with thousands
// of streams that rarely meet keeps its clocks small.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
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
  // Sets `agent`'s tick to at least `t`. Each op raises and ticks clocks,
  // so these search the entries once, not once to read and once to write.
  void raise(uint32_t agent, Tick t);
  // The agent's next tick, which the clock now holds.
  Tick tick(uint32_t agent);
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
  std::vector<Entry>::iterator find(uint32_t agent) {
    return entries_.begin() + (std::as_const(*this).find(agent) - entries_.cbegin());
  }

  std::vector<Entry> entries_;  // by agent, ticks > 0
  // Where tick() found its agent last: a clock ticks its own agent at
  // every op, so the search is skipped while the entry stays there.
  uint32_t tick_hint_ = 0;
};

}  // namespace racetrack::hb
