#include "tick_map.h"

#include "racetrack/hb/happens_before.h"
#include "racetrack/traces/describe.h"

namespace racetrack::race {

bool TickMap::want(const HazardSide& side, uint64_t tick) {
  if (!tick) return true;
  Agent& a = side.stream ? agent(streams_, side.stream) : agent(threads_, side.thread);
  if (a.ticks >= tick) return false;
  a.wanted.insert(tick);
  return true;
}

void TickMap::note(const v1::Op& op, const TraceTables& tables) {
  note_point(agent(threads_, op.thread()), key(0, op.thread()), op, tables);
  if (hb::is_device_op(op)) note_point(agent(streams_, op.stream()), key(op.stream(), 0), op, tables);
}

const std::pair<uint64_t, std::string>* TickMap::find(const HazardSide& side, uint64_t tick) const {
  auto it = found_.find({key(side.stream, side.thread), tick});
  return it == found_.end() ? nullptr : &it->second;
}

void TickMap::note_point(Agent& a, uint64_t key, const v1::Op& op, const TraceTables& tables) {
  ++a.ticks;
  // want() takes only ticks still ahead, so the first wanted is never behind.
  if (a.wanted.empty() || *a.wanted.begin() != a.ticks) return;
  a.wanted.erase(a.wanted.begin());
  found_[{key, a.ticks}] = {op.seq(), op_title(op, tables)};
}

}  // namespace racetrack::race
