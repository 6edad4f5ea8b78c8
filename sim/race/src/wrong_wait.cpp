#include "wrong_wait.h"

#include <algorithm>

namespace racetrack::race {
namespace {

constexpr size_t kWaitsKept = 4;  // enough to name them in one line

std::string where(uint32_t stream, uint32_t thread, const TraceTables& t) {
  return stream ? t.stream_label(stream) : "host thread " + std::to_string(thread);
}

std::string wait_text(const auto& w, const TraceTables& t) {
  return "#" + std::to_string(w.seq) + (w.stream ? " waits on " : " synchronises on ") +
         t.event_label(w.event) + ", recorded at #" + std::to_string(w.record_seq) + " on " +
         t.stream_label(w.record_stream);
}

}  // namespace

void WrongWaits::want(const Hazard& h) {
  // Host producers have no event to wait on; graph nodes keep their own explanation.
  if (!h.first.stream || h.first.access.node) return;
  if (by_hazard_.count(h.key())) return;
  const size_t i = watches_.size();
  Watch& w = watches_.emplace_back();
  w.first_seq = h.first.seq;
  w.second_seq = h.second.seq;
  w.producer_stream = h.first.stream;
  w.consumer = agent_key(h.second.stream, h.second.thread);
  by_hazard_[h.key()] = i;
  by_consumer_[w.consumer].push_back(i);
  by_producer_[w.producer_stream].push_back(i);
}

void WrongWaits::note(const v1::Op& op) {
  switch (op.what_case()) {
    case v1::Op::kRecord: last_record_[op.record().event()] = {op.seq(), op.stream()}; break;
    case v1::Op::kWait: note_wait(op, op.wait().event()); break;
    case v1::Op::kSync:
      if (op.sync().kind() == v1::SYNC_EVENT) note_wait(op, op.sync().event());
      break;
    default: break;
  }
}

void WrongWaits::note_wait(const v1::Op& op, uint32_t event) {
  Wait wait{op.seq(), op.what_case() == v1::Op::kWait ? op.stream() : 0, op.thread(), event, 0, 0};
  auto rec = last_record_.find(event);
  if (rec != last_record_.end()) {
    wait.record_seq = rec->second.seq;
    wait.record_stream = rec->second.stream;
  }
  const uint64_t consumer = agent_key(wait.stream, wait.thread);
  if (auto it = by_consumer_.find(consumer); it != by_consumer_.end())
    for (size_t i : it->second) {
      Watch& w = watches_[i];
      if (op.seq() <= w.first_seq || op.seq() >= w.second_seq) continue;
      if (w.waits.size() == kWaitsKept) w.waits.erase(w.waits.begin());
      w.waits.push_back(wait);
    }
  if (!wait.record_seq) return;
  // A wait that does cover the producer, but orders another stream.
  if (auto it = by_producer_.find(wait.record_stream); it != by_producer_.end())
    for (size_t i : it->second) {
      Watch& w = watches_[i];
      if (wait.record_seq > w.first_seq && op.seq() < w.second_seq && consumer != w.consumer &&
          !w.misplaced.seq)
        w.misplaced = wait;
    }
}

std::string WrongWaits::explain(const Hazard& h, const TraceTables& t) const {
  auto found = by_hazard_.find(h.key());
  if (found == by_hazard_.end()) return "";
  const Watch& w = watches_[found->second];
  const std::string second =
      "#" + std::to_string(h.second.seq) + " on " + where(h.second.stream, h.second.thread, t);
  const std::string producer = t.stream_label(w.producer_stream);
  const std::string racing = ", where the racing op #" + std::to_string(h.first.seq) + " runs";
  if (w.misplaced.seq)
    return second + " is not ordered after " + producer + racing + ": the wait that covers it, " +
           wait_text(w.misplaced, t) + ", was issued on " + where(w.misplaced.stream, w.misplaced.thread, t) +
           ", not on " + where(h.second.stream, h.second.thread, t);

  std::vector<const Wait*> elsewhere;  // bound to a record on another stream
  for (const Wait& wait : w.waits)
    if (wait.record_seq && wait.record_stream != w.producer_stream) elsewhere.push_back(&wait);
  if (elsewhere.empty()) return "";
  std::string waits;
  bool on_a_producer = false, on_legacy_default = false;
  for (const Wait* wait : elsewhere) {
    waits += (waits.empty() ? "" : "; ") + wait_text(*wait, t);
    const std::vector<uint32_t>& writers = h.second_region_writers;  // before the second op
    on_a_producer |= std::find(writers.begin(), writers.end(), wait->record_stream) != writers.end();
    const v1::Stream* s = t.stream(wait->record_stream);
    on_legacy_default |= s && s->flags() == v1::STREAM_LEGACY_DEFAULT;
  }
  const std::string region =
      h.second.region_label ? " \"" + std::string(t.string(h.second.region_label)) + "\"" : "";
  if (on_a_producer)
    return second + " waited on one producer of" + region + " only (" + waits + "), not on " + producer +
           racing + ": it must wait on every stream that writes it";
  return second + " waited, but on an event recorded on another stream than " + producer + racing + " (" +
         waits + ")" +
         (on_legacy_default ? ": the legacy default stream does not order work on non-blocking streams" : "");
}

}  // namespace racetrack::race
