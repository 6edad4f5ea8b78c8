#include "recorded_events.h"

#include "racetrack/hb/happens_before.h"

namespace racetrack::race {

void RecordedEvents::on_op(const v1::Op& op) {
  if (!hb::is_device_op(op)) return;
  if (!op.has_record()) {
    last_work_[op.stream()] = {op.seq(), op.thread()};
    return;
  }
  const uint32_t event = op.record().event();
  // A re-record moves the event: waiting on it no longer means "after" the
  // op its previous record followed.
  if (auto it = recorded_after_.find(event); it != recorded_after_.end()) {
    if (auto e = event_after_.find(it->second); e != event_after_.end() && e->second == event)
      event_after_.erase(e);
    recorded_after_.erase(it);
  }
  const auto work = last_work_.find(op.stream());
  if (work == last_work_.end() || work->second.thread != op.thread()) return;
  recorded_after_[event] = work->second.seq;
  event_after_.try_emplace(work->second.seq, event);
}

uint32_t RecordedEvents::right_after(uint64_t seq) const {
  const auto it = event_after_.find(seq);
  return it == event_after_.end() ? 0 : it->second;
}

}  // namespace racetrack::race
