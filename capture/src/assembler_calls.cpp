#include "assembler_calls.h"

#include <algorithm>
#include <utility>

namespace racetrack::capture {
namespace {

template <typename T>
void fill(T& into, const T& from, T empty = T{}) {
  if (into == empty) into = from;
}

}  // namespace

uint64_t correlation_of(const DeviceRecord& record) {
  return std::visit([](const auto& r) -> uint64_t { return r.correlation; }, record);
}

// The lower-seq event (the runtime call) gives seq, thread and host times;
// what it left empty comes from the other (the nested driver call), and
// argument words come from the driver call, which sees every launch.
void CallQueue::merge(Call& call, const ApiEvent& event, std::span<const uint64_t> payload) {
  const bool incoming_first = event.seq < call.event.seq;
  const ApiEvent other = incoming_first ? call.event : event;
  ApiEvent merged = incoming_first ? event : call.event;
  fill(merged.host_end, other.host_end);
  fill(merged.result, other.result);
  fill(merged.context_id, other.context_id, kNoId);
  fill(merged.stream_id, other.stream_id, kNoId);
  fill(merged.stream, other.stream);
  fill(merged.event, other.event);
  fill(merged.handle, other.handle);
  fill(merged.dst, other.dst);
  fill(merged.src, other.src);
  fill(merged.bytes, other.bytes);
  fill(merged.value, other.value);
  fill(merged.priority, other.priority);
  for (int i = 0; i < 3; ++i) {
    fill(merged.grid[i], other.grid[i]);
    fill(merged.block[i], other.block[i]);
  }
  fill(merged.shared_mem, other.shared_mem);
  fill(merged.element_size, other.element_size);
  fill(merged.graph_node, other.graph_node);
  // Either half may know it is async, per-thread or captured.
  merged.flags = static_cast<uint16_t>(merged.flags | other.flags);
  const bool driver_words = event.domain == ApiDomain::kDriver && !payload.empty();
  if (driver_words || call.payload.empty()) {
    call.payload.assign(payload.begin(), payload.end());
    merged.payload_words = event.payload_words;
    merged.payload_bytes = event.payload_bytes;
  }
  call.event = merged;
}

bool CallQueue::add(const ApiEvent& event, std::span<const uint64_t> payload) {
  const uint64_t correlation = event.correlation;
  if (correlation != 0) {
    max_correlation_ = std::max(max_correlation_, correlation);
    auto seqs = by_correlation_.find(correlation);
    if (seqs != by_correlation_.end()) {
      for (uint64_t& seq : seqs->second) {
        auto node = calls_.extract(seq);
        if (node.mapped().event.kind != event.kind) {
          calls_.insert(std::move(node));
          continue;
        }
        merge(node.mapped(), event, payload);
        seq = node.key() = node.mapped().event.seq;
        calls_.insert(std::move(node));
        return true;
      }
    }
  }
  Call call{event, std::vector<uint64_t>(payload.begin(), payload.end()), {}};
  if (correlation != 0) {
    by_correlation_[correlation].push_back(event.seq);
    if (auto orphans = orphans_.find(correlation); orphans != orphans_.end()) {
      call.records = std::move(orphans->second.records);
      orphans_.erase(orphans);
    }
  }
  calls_.insert_or_assign(event.seq, std::move(call));
  return false;
}

void CallQueue::add_record(DeviceRecord record, std::optional<int64_t> now_ns) {
  const uint64_t correlation = correlation_of(record);
  if (auto seqs = by_correlation_.find(correlation); seqs != by_correlation_.end()) {
    calls_.at(seqs->second.front()).records.push_back(std::move(record));
    return;
  }
  if (recently_written_.count(correlation)) return;
  Orphans& orphans = orphans_[correlation];
  if (!orphans.arrived) orphans.arrived = now_ns;
  orphans.records.push_back(std::move(record));
}

void CallQueue::forget_correlation(uint64_t correlation, uint64_t seq) {
  auto seqs = by_correlation_.find(correlation);
  if (seqs == by_correlation_.end()) return;
  std::erase(seqs->second, seq);
  if (seqs->second.empty()) by_correlation_.erase(seqs);
}

void CallQueue::pop_head(std::optional<int64_t> now_ns) {
  auto head = calls_.begin();
  const uint64_t correlation = head->second.event.correlation;
  if (correlation != 0) {
    forget_correlation(correlation, head->first);
    if (recently_written_.insert(correlation).second) written_.emplace_back(correlation, now_ns);
  }
  calls_.erase(head);
}

uint64_t CallQueue::drop_stale_orphans(int64_t now_ns, int64_t wait_ns) {
  // Correlation ids grow with calls: one below every pending call's belongs
  // to a call already written or one that was never recorded.
  const uint64_t below = by_correlation_.empty() ? max_correlation_ + 1 : by_correlation_.begin()->first;
  while (!written_.empty() && (!written_.front().second || now_ns - *written_.front().second > wait_ns)) {
    recently_written_.erase(written_.front().first);
    written_.pop_front();
  }
  uint64_t dropped = 0;
  for (auto it = orphans_.begin(); it != orphans_.end() && it->first < below;) {
    Orphans& o = it->second;
    if (!o.arrived) o.arrived = now_ns;
    if (now_ns - *o.arrived > wait_ns) {
      dropped += o.records.size();
      it = orphans_.erase(it);
    } else {
      ++it;
    }
  }
  return dropped;
}

uint64_t CallQueue::drop_all_orphans() {
  uint64_t dropped = 0;
  for (const auto& [correlation, o] : orphans_) dropped += o.records.size();
  orphans_.clear();
  return dropped;
}

}  // namespace racetrack::capture
