#include "allocators.h"

namespace racetrack::synth {
namespace {

constexpr uint64_t kBlockAlignment = 512;

uint64_t round_up(uint64_t v) { return (v + kBlockAlignment - 1) / kBlockAlignment * kBlockAlignment; }

}  // namespace

CachingAllocator::CachingAllocator(Emitter& emitter, uint64_t segment_bytes)
    : emitter_(emitter), segment_bytes_(segment_bytes) {}

uint32_t CachingAllocator::take_event() {
  if (!spare_events_.empty()) {
    const uint32_t e = spare_events_.back();
    spare_events_.pop_back();
    return e;
  }
  return emitter_.new_event("allocator_event_" + std::to_string(++events_made_));
}

void CachingAllocator::process_events() {
  while (!pending_.empty()) {
    Pending& p = pending_.front();
    if (!emitter_.query(p.event)) return;
    free_[{p.block.stream, p.block.size}].push_back(p.block.address);
    spare_events_.push_back(p.event);
    pending_.pop_front();
  }
}

Tensor CachingAllocator::allocate(std::string label, uint64_t size, uint32_t stream) {
  process_events();
  Tensor t;
  t.size = size;
  t.stream = stream;
  t.label = std::move(label);
  auto& cached = free_[{stream, size}];
  if (!cached.empty()) {
    t.address = cached.back();
    cached.pop_back();
  } else {
    if (segment_used_ + round_up(size) > segment_size_) {
      // A new segment: cudaMalloc, which synchronises the device.
      segment_size_ = std::max(segment_bytes_, round_up(size));
      segment_base_ =
          emitter_.driver_alloc("segment " + std::to_string(++segments_), segment_size_, v1::SPACE_DEVICE).address;
      segment_used_ = 0;
    }
    t.address = segment_base_ + segment_used_;
    segment_used_ += round_up(size);
  }
  emitter_.block_alloc(t);
  return t;
}

void CachingAllocator::free(const Tensor& t) {
  emitter_.block_free(t, t.stream);
  free_[{t.stream, t.size}].push_back(t.address);
}

void CachingAllocator::free_after_use(const Tensor& t, uint32_t use_stream) {
  emitter_.block_free(t, t.stream);
  const uint32_t event = take_event();
  emitter_.record(event, use_stream);
  pending_.push_back(Pending{t, event});
}

Tensor PinnedPool::take(uint64_t size, uint32_t stream) {
  auto& entries = free_[size];
  if (entries.empty()) {
    Tensor t = emitter_.driver_alloc("pinned " + std::to_string(++buffers_), size, v1::SPACE_PINNED_HOST);
    events_[t.address] = emitter_.new_event("pinned_ready_" + std::to_string(buffers_));
    return t;
  }
  Entry e = entries.back();
  entries.pop_back();
  if (e.event) emitter_.wait(stream, e.event);
  return e.buffer;
}

void PinnedPool::give_back(const Tensor& buffer, uint32_t reader_stream) {
  const uint32_t event = events_.at(buffer.address);
  emitter_.record(event, reader_stream);
  free_[buffer.size].push_back(Entry{buffer, event});
}

void PinnedPool::give_back_now(const Tensor& buffer) {
  free_[buffer.size].push_back(Entry{buffer, 0});
}

}  // namespace racetrack::synth
