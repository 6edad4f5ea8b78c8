#include "wrong_wait.h"

#include <algorithm>

namespace racetrack::race {
namespace {

constexpr size_t kWaitsKept = 4;  // enough to name them in one line

bool writes(v1::AccessMode mode) {
  return mode != v1::MODE_READ;
}

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
  const uint32_t region = h.second.access.region;
  if (!region) return;
  by_region_[region].push_back(i);
  if (auto it = writers_.find(region); it != writers_.end()) w.writers = it->second;
}

void WrongWaits::note_regions(const v1::Chunk& chunk) {
  for (const v1::Region& r : chunk.regions()) {
    if (r.alloc_seq())
      allocated_[r.id()] = {r.base(), r.base() + r.size()};
    else
      region_at_[r.base()] = {r.base() + r.size(), r.id()};
  }
}

void WrongWaits::note(const v1::Op& op) {
  switch (op.what_case()) {
    case v1::Op::kRecord: last_record_[op.record().event()] = {op.seq(), op.stream()}; break;
    case v1::Op::kWait: note_wait(op, op.wait().event()); break;
    case v1::Op::kSync:
      if (op.sync().kind() == v1::SYNC_EVENT) note_wait(op, op.sync().event());
      break;
    case v1::Op::kKernel:
      for (const v1::Access& a : op.kernel().accesses())
        if (writes(a.mode())) note_write(op.stream(), op.seq(), a.region(), a.address());
      break;
    case v1::Op::kMemcpy: note_write(op.stream(), op.seq(), 0, op.memcpy().dst()); break;
    case v1::Op::kMemset: note_write(op.stream(), op.seq(), 0, op.memset().dst()); break;
    case v1::Op::kAlloc:
      if (auto it = allocated_.find(op.alloc().region()); it != allocated_.end())
        region_at_[it->second.first] = {it->second.second, it->first};
      break;
    case v1::Op::kFree:
      if (auto it = allocated_.find(op.free().region()); it != allocated_.end()) {
        auto at = region_at_.find(it->second.first);
        if (at != region_at_.end() && at->second.second == it->first) region_at_.erase(at);
        writers_.erase(it->first);
        allocated_.erase(it);
      }
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

void WrongWaits::note_write(uint32_t stream, uint64_t seq, uint32_t region, uint64_t address) {
  if (!stream) return;
  if (!region) {
    auto it = region_at_.upper_bound(address);
    if (it == region_at_.begin()) return;
    --it;
    if (address >= it->second.first) return;
    region = it->second.second;
  }
  std::vector<uint32_t>& streams = writers_[region];
  if (std::find(streams.begin(), streams.end(), stream) == streams.end()) streams.push_back(stream);
  if (by_region_.empty()) return;
  auto it = by_region_.find(region);
  if (it == by_region_.end()) return;
  for (size_t i : it->second) add_writer(watches_[i], stream, seq);
}

void WrongWaits::add_writer(Watch& w, uint32_t stream, uint64_t seq) {
  if (seq >= w.second_seq || std::find(w.writers.begin(), w.writers.end(), stream) != w.writers.end()) return;
  w.writers.push_back(stream);
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
    on_a_producer |= std::find(w.writers.begin(), w.writers.end(), wait->record_stream) != w.writers.end();
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
