#include "racetrack/race/graph_lifetimes.h"

#include <algorithm>

#include "racetrack/hb/happens_before.h"

namespace racetrack::race {
namespace {

// How far back from an address the kept regions are searched for one that
// contains it (regions kept at one base are few; a longer scan only costs).
constexpr int kMaxScan = 64;

void merge(std::map<uint32_t, uint64_t>& into, const std::map<uint32_t, uint64_t>& from) {
  for (const auto& [stream, seq] : from) {
    uint64_t& known = into[stream];
    known = std::max(known, seq);
  }
}

uint32_t region_of(const v1::Op& op) {
  return op.has_alloc() ? op.alloc().region() : op.has_free() ? op.free().region() : 0;
}

}  // namespace

uint32_t GraphLifetimes::capture_of(const v1::Op& op) const {
  if (!hb::is_device_op(op)) return 0;
  if (auto s = stream_capture_.find(op.stream()); s != stream_capture_.end()) return s->second;
  // A wait on an event recorded in a capture forks the waiting stream into it.
  if (op.has_wait())
    if (auto r = recorded_.find(op.wait().event()); r != recorded_.end() && open_.count(r->second.capture))
      return r->second.capture;
  return 0;
}

bool GraphLifetimes::is_captured(const v1::Op& op) const {
  return !open_.empty() && capture_of(op) != 0;
}

void GraphLifetimes::keep(const CapturedRegion& r) {
  kept_index_[r.region] = kept_.size();
  by_base_[r.space].emplace(r.base, kept_.size());
  kept_.push_back(r);
}

void GraphLifetimes::on_captured(const v1::Op& op, const AccessResolver& resolver) {
  const uint32_t id = capture_of(op);
  if (!id) return;
  Capture& c = open_.at(id);
  stream_capture_[op.stream()] = id;
  Member& m = c.members[op.stream()];
  if (op.has_wait())
    if (auto r = recorded_.find(op.wait().event()); r != recorded_.end()) merge(m.knows, r->second.knows);
  m.knows[op.stream()] = op.seq();
  m.last_seq = op.seq();
  m.last_op = op;
  if (op.has_record()) recorded_[op.record().event()] = RecordedInCapture{id, m.knows};
  const uint32_t region = region_of(op);
  const RegionInfo* info = region ? resolver.region(region) : nullptr;
  if (op.has_alloc() && info) {
    // Stream-ordered allocation during capture: the graph's own pool.
    c.pool.push_back(kept_.size());
    keep(CapturedRegion{region, info->label, info->space, info->base, info->size, op.seq(), 0, 0, 0, 0});
  }
  if (op.has_free())
    if (auto k = kept_index_.find(region); k != kept_index_.end()) kept_[k->second].free_seq = op.seq();
}

void GraphLifetimes::on_op(const v1::Op& op, const AccessResolver& resolver, std::vector<v1::Op>& unjoined) {
  if (op.has_capture()) {
    if (op.capture().phase() == v1::CAPTURE_BEGIN) {
      const uint32_t id = next_capture_++;
      open_[id].origin = op.stream();
      open_[id].members[op.stream()];
      stream_capture_[op.stream()] = id;
      return;
    }
    auto s = stream_capture_.find(op.stream());
    if (s == stream_capture_.end()) return;
    const uint32_t id = s->second;
    Capture& c = open_.at(id);
    if (c.origin != op.stream()) return;  // only the stream that began it ends it
    const Member& origin = c.members[c.origin];
    for (const auto& [stream, m] : c.members) {
      if (stream == c.origin || !m.last_seq) continue;
      auto known = origin.knows.find(stream);
      if (known == origin.knows.end() || known->second < m.last_seq) unjoined.push_back(m.last_op);
    }
    for (size_t k : c.pool) kept_[k].pool_capture = op.seq();
    for (const auto& [stream, m] : c.members) stream_capture_.erase(stream);
    std::erase_if(recorded_, [&](const auto& r) { return r.second.capture == id; });
    open_.erase(id);
    last_capture_end_ = op.seq();
    return;
  }
  if (op.has_free()) {
    const uint32_t region = op.free().region();
    if (auto k = kept_index_.find(region); k != kept_index_.end()) {
      kept_[k->second].free_seq = op.seq();
      return;
    }
    // Only a region live at some capture end can be a graph's address.
    const RegionInfo* info = resolver.region(region);
    if (!last_capture_end_ || !info || info->alloc_seq > last_capture_end_) return;
    const uint64_t alloc = info->alloc_seq;
    const uint32_t stream = op.free().stream_ordered() ? op.stream() : 0;
    keep(CapturedRegion{region, info->label, info->space, info->base, info->size, alloc, op.seq(), stream,
                        op.thread(), 0});
  }
}

const CapturedRegion* GraphLifetimes::captured_region(uint64_t captured_seq, SpaceKey space, uint64_t lo,
                                                      uint64_t hi) const {
  auto m = by_base_.find(space);
  if (!captured_seq || m == by_base_.end()) return nullptr;
  const CapturedRegion* live_then = nullptr;
  auto it = m->second.upper_bound(lo);
  for (int scanned = 0; it != m->second.begin() && scanned < kMaxScan; ++scanned) {
    --it;
    const CapturedRegion& r = kept_[it->second];
    if (r.base > lo || hi > r.base + r.size) continue;
    if (r.pool_capture == captured_seq) return &r;  // the graph's own intermediate
    const bool was_live = r.pool_capture == 0 && r.alloc_seq <= captured_seq && r.free_seq > captured_seq;
    if (was_live && !live_then) live_then = &r;
  }
  return live_then;
}

}  // namespace racetrack::race
