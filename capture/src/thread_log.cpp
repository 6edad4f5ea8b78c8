#include "thread_log.h"

#include <cstring>

namespace racetrack::capture {

ThreadLog::ThreadLog() {
  tail_ = head_ = new LogBlock;
  blocks_allocated_.store(1, std::memory_order_relaxed);
}

ThreadLog::~ThreadLog() {
  for (LogBlock* b = head_; b != nullptr;) {
    LogBlock* next = b->next.load(std::memory_order_relaxed);
    delete b;
    b = next;
  }
  for (auto& slot : ring_) delete slot.load(std::memory_order_relaxed);
}

void ThreadLog::append(const ApiEvent& event, std::span<const uint64_t> payload) {
  const auto words = static_cast<uint32_t>(payload.size());
  LogBlock* block = tail_;
  const uint32_t index = block->published.load(std::memory_order_relaxed);
  if (index == LogBlock::kEvents || block->words_used + words > LogBlock::kWords) {
    LogBlock* fresh = take_block();
    block->next.store(fresh, std::memory_order_release);
    tail_ = block = fresh;
    return append(event, payload);
  }
  ApiEvent& slot = block->events[index];
  slot = event;
  slot.payload_offset = block->words_used;
  slot.payload_words = words;
  if (words != 0) std::memcpy(block->words + block->words_used, payload.data(), words * 8);
  block->words_used += words;
  block->published.store(index + 1, std::memory_order_release);
}

LogBlock* ThreadLog::take_block() {
  const uint32_t read = ring_read_.load(std::memory_order_relaxed);
  if (read != ring_write_.load(std::memory_order_acquire)) {
    LogBlock* block = ring_[read % kRing].exchange(nullptr, std::memory_order_acquire);
    ring_read_.store(read + 1, std::memory_order_release);
    block->words_used = 0;
    block->published.store(0, std::memory_order_relaxed);
    block->next.store(nullptr, std::memory_order_relaxed);
    return block;
  }
  blocks_allocated_.fetch_add(1, std::memory_order_relaxed);
  return new LogBlock;
}

void ThreadLog::recycle(LogBlock* block) {
  const uint32_t write = ring_write_.load(std::memory_order_relaxed);
  if (write - ring_read_.load(std::memory_order_acquire) == kRing) {
    delete block;  // the ring is full: the producer has spares enough
    return;
  }
  ring_[write % kRing].store(block, std::memory_order_release);
  ring_write_.store(write + 1, std::memory_order_release);
}

}  // namespace racetrack::capture
