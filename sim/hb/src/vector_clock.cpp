#include "racetrack/hb/vector_clock.h"

namespace racetrack::hb {

void VectorClock::set(uint32_t agent, Tick t) {
  const auto at = find(agent);
  if (at != entries_.end() && at->agent == agent) {
    at->tick = t;
  } else if (t != 0) {
    entries_.insert(at, Entry{agent, t});
  }
}

void VectorClock::raise(uint32_t agent, Tick t) {
  const auto at = find(agent);
  if (at != entries_.end() && at->agent == agent) {
    at->tick = std::max(at->tick, t);
  } else if (t != 0) {
    entries_.insert(at, Entry{agent, t});
  }
}

Tick VectorClock::tick(uint32_t agent) {
  if (tick_hint_ < entries_.size() && entries_[tick_hint_].agent == agent) return ++entries_[tick_hint_].tick;
  const auto at = find(agent);
  tick_hint_ = static_cast<uint32_t>(at - entries_.begin());
  if (at != entries_.end() && at->agent == agent) return ++at->tick;
  entries_.insert(at, Entry{agent, 1});
  return 1;
}

bool VectorClock::join(const VectorClock& other) {
  // In place while every agent of `other` is already here (the usual case
  // once two agents have met); a merge into a new table otherwise.
  bool grew = false;
  auto mine = entries_.begin();
  auto theirs = other.entries_.begin();
  for (; theirs != other.entries_.end(); ++theirs) {
    while (mine != entries_.end() && mine->agent < theirs->agent) ++mine;
    if (mine == entries_.end() || mine->agent != theirs->agent) break;
    if (theirs->tick > mine->tick) {
      mine->tick = theirs->tick;
      grew = true;
    }
  }
  if (theirs == other.entries_.end()) return grew;
  std::vector<Entry> merged;
  merged.reserve(entries_.size() + static_cast<size_t>(other.entries_.end() - theirs));
  auto a = entries_.begin();
  auto b = other.entries_.begin();
  while (a != entries_.end() || b != other.entries_.end()) {
    if (b == other.entries_.end() || (a != entries_.end() && a->agent < b->agent)) {
      merged.push_back(*a++);
    } else if (a == entries_.end() || b->agent < a->agent) {
      merged.push_back(*b++);
    } else {
      merged.push_back(Entry{a->agent, std::max(a->tick, b->tick)});
      ++a;
      ++b;
    }
  }
  entries_ = std::move(merged);
  return true;
}

}  // namespace racetrack::hb
