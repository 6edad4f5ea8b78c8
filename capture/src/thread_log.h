// The per-thread log of API events: the application thread appends (no
// locks; an allocation only when every block is in use), the collector
// thread drains. Single producer, single consumer per log.
//
// Events go into fixed blocks with their payload words beside them; a full
// block is sealed by linking the next one, and the consumer hands drained
// blocks back through a small ring so steady state allocates nothing.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>

#include "api_event.h"

namespace racetrack::capture {

struct LogBlock {
  static constexpr uint32_t kEvents = 1024;
  static constexpr uint32_t kWords = 32768;
  ApiEvent events[kEvents];
  uint64_t words[kWords];
  uint32_t words_used = 0;                  // producer only
  std::atomic<uint32_t> published{0};      // events the consumer may read
  std::atomic<LogBlock*> next{nullptr};    // set once the producer moved on
};

class ThreadLog {
 public:
  // The largest payload one event may carry (CUDA's 32 KiB parameter limit,
  // plus slack); longer ones must be cut by the caller.
  static constexpr uint32_t kMaxPayloadWords = 4200;

  ThreadLog();
  ~ThreadLog();
  ThreadLog(const ThreadLog&) = delete;
  ThreadLog& operator=(const ThreadLog&) = delete;

  // Producer: copies the event and its payload (payload_offset is rewritten
  // to point into the block).
  void append(const ApiEvent& event, std::span<const uint64_t> payload);

  // Consumer: calls visit(event, payload) for every event appended so far,
  // in order. Returns the number visited.
  template <class Visit>
  uint64_t drain(Visit&& visit) {
    uint64_t visited = 0;
    while (true) {
      const uint32_t published = head_->published.load(std::memory_order_acquire);
      for (; consumed_ < published; ++consumed_, ++visited) {
        const ApiEvent& e = head_->events[consumed_];
        visit(e, std::span<const uint64_t>(head_->words + e.payload_offset, e.payload_words));
      }
      LogBlock* next = head_->next.load(std::memory_order_acquire);
      if (next == nullptr) return visited;
      // Sealed: events published before the seal are now visible.
      if (head_->published.load(std::memory_order_acquire) != consumed_) continue;
      recycle(head_);
      head_ = next;
      consumed_ = 0;
    }
  }

  // Blocks allocated so far (a test and diagnostics hook).
  uint64_t blocks_allocated() const { return blocks_allocated_.load(std::memory_order_relaxed); }

 private:
  LogBlock* take_block();         // producer
  void recycle(LogBlock* block);  // consumer

  LogBlock* tail_;      // producer's current block
  LogBlock* head_;      // consumer's current block
  uint32_t consumed_ = 0;
  // Drained blocks on their way back to the producer.
  static constexpr uint32_t kRing = 4;
  std::array<std::atomic<LogBlock*>, kRing> ring_{};
  std::atomic<uint32_t> ring_write_{0};  // consumer
  std::atomic<uint32_t> ring_read_{0};   // producer
  std::atomic<uint64_t> blocks_allocated_{0};
};

}  // namespace racetrack::capture
