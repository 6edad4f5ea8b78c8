#include "recorded_events.h"

#include "racetrack/hb/happens_before.h"

namespace racetrack::race {

void RecordedEvents::on_op(const v1::Op& op) {
  if (!hb::is_device_op(op)) return;
  if (!op.has_record()) {
    if (op.stream() >= last_work_.size()) last_work_.resize(op.stream() + 1);
    last_work_[op.stream()] = {op.seq(), op.thread()};
    return;
  }
  const uint32_t event = op.record().event();
  // A re-record moves the event: waiting on it no longer means "after" the
  // op its previous record followed.
  uint64_t& after = recorded_after_[event];
  if (after)
    if (auto e = event_after_.find(after); e != event_after_.end() && e->second == event)
      event_after_.erase(e);
  after = 0;
  const Point work = op.stream() < last_work_.size() ? last_work_[op.stream()] : Point{};
  if (!work.seq || work.thread != op.thread()) return;
  after = work.seq;
  event_after_.try_emplace(work.seq, event);
}

uint32_t RecordedEvents::right_after(uint64_t seq) const {
  const auto it = event_after_.find(seq);
  return it == event_after_.end() ? 0 : it->second;
}

}  // namespace racetrack::race
