#include "order_tracker.h"

#include <algorithm>

namespace racetrack::synth {

OrderTracker::OrderTracker(uint32_t streams) : clocks_(streams + 1, Clock(streams + 1, 0)) {}

void OrderTracker::join(Clock& into, const Clock& from) {
  for (size_t i = 0; i < into.size() && i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

OrderTracker::Point OrderTracker::device_op(uint32_t stream) {
  join(clocks_[stream], clocks_[0]);
  return Point{stream, ++clocks_[stream][stream]};
}

OrderTracker::Point OrderTracker::host_op() { return Point{0, ++clocks_[0][0]}; }

void OrderTracker::record(uint32_t event, uint32_t stream) {
  device_op(stream);
  if (events_.size() <= event) events_.resize(event + 1);
  events_[event] = clocks_[stream];
}

void OrderTracker::wait(uint32_t stream, uint32_t event) {
  device_op(stream);
  if (event < events_.size()) join(clocks_[stream], events_[event]);
}

void OrderTracker::join_stream(uint32_t stream) { join(clocks_[0], clocks_[stream]); }

void OrderTracker::join_event(uint32_t event) {
  if (event < events_.size()) join(clocks_[0], events_[event]);
}

void OrderTracker::join_all() {
  for (size_t s = 1; s < clocks_.size(); ++s) join(clocks_[0], clocks_[s]);
}

bool OrderTracker::ordered(Point earlier, uint32_t agent) const {
  return clocks_[agent][earlier.agent] >= earlier.tick;
}

}  // namespace racetrack::synth
