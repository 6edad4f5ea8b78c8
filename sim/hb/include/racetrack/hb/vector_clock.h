// Vector clocks over agents (streams, host threads and graph-node slots),
// growing as agents appear.
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
};

class VectorClock {
 public:
  Tick get(uint32_t agent) const { return agent < v_.size() ? v_[agent] : 0; }
  void set(uint32_t agent, Tick t) {
    if (agent >= v_.size()) v_.resize(agent + 1, 0);
    v_[agent] = t;
  }
  void raise(uint32_t agent, Tick t) {
    if (t > get(agent)) set(agent, t);
  }
  Tick tick(uint32_t agent) {
    const Tick t = get(agent) + 1;
    set(agent, t);
    return t;
  }
  // Pointwise maximum; returns whether anything grew.
  bool join(const VectorClock& other) {
    if (other.v_.size() > v_.size()) v_.resize(other.v_.size(), 0);
    bool grew = false;
    for (size_t i = 0; i < other.v_.size(); ++i)
      if (other.v_[i] > v_[i]) {
        v_[i] = other.v_[i];
        grew = true;
      }
    return grew;
  }
  // Whether the op at `e` happens-before (or is) the point this clock describes.
  bool covers(Epoch e) const { return get(e.agent) >= e.tick; }
  size_t size() const { return v_.size(); }

 private:
  std::vector<Tick> v_;
};

}  // namespace racetrack::hb
