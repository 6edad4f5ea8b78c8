// CUPTI activity buffers: handed to CUPTI from a free list of pre-faulted
// buffers (a fresh 8 MiB malloc cost 5-8 ms of page faults on the H200,
// docs/cupti-notes.md §7.2), queued when CUPTI completes them, and recycled after the
// collector decoded them. Not on the launch path, so a mutex is fine.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

namespace racetrack::capture {

struct CompletedBuffer {
  uint8_t* data = nullptr;
  size_t valid_bytes = 0;
};

class ActivityBuffers {
 public:
  static constexpr size_t kBufferBytes = 4u << 20;

  explicit ActivityBuffers(size_t preallocate);
  ~ActivityBuffers();

  uint8_t* acquire();                       // CUPTI's buffer-request callback
  void complete(uint8_t* data, size_t valid_bytes);  // buffer-completed callback
  std::vector<CompletedBuffer> take_completed();     // collector
  void release(uint8_t* data);              // collector, after decoding

 private:
  static uint8_t* allocate_prefaulted();
  std::mutex mutex_;
  std::vector<uint8_t*> free_;
  std::deque<CompletedBuffer> completed_;
  std::vector<uint8_t*> all_;
};

}  // namespace racetrack::capture
