#include "shim/activity_buffers.h"

#include <cstdlib>
#include <cstring>

namespace racetrack::capture {

ActivityBuffers::ActivityBuffers(size_t preallocate) {
  for (size_t i = 0; i < preallocate; ++i) {
    uint8_t* b = allocate_prefaulted();
    if (b == nullptr) break;
    all_.push_back(b);
    free_.push_back(b);
  }
}

ActivityBuffers::~ActivityBuffers() {
  for (uint8_t* b : all_) std::free(b);
}

uint8_t* ActivityBuffers::allocate_prefaulted() {
  // CUPTI wants 8-byte alignment; page alignment keeps the memset cheap.
  void* p = std::aligned_alloc(4096, kBufferBytes);
  if (p != nullptr) std::memset(p, 0, kBufferBytes);
  return static_cast<uint8_t*>(p);
}

uint8_t* ActivityBuffers::acquire() {
  {
    std::lock_guard lock(mutex_);
    if (!free_.empty()) {
      uint8_t* b = free_.back();
      free_.pop_back();
      return b;
    }
  }
  uint8_t* b = allocate_prefaulted();
  if (b != nullptr) {
    std::lock_guard lock(mutex_);
    all_.push_back(b);
  }
  return b;
}

void ActivityBuffers::complete(uint8_t* data, size_t valid_bytes) {
  std::lock_guard lock(mutex_);
  completed_.push_back({data, valid_bytes});
}

std::vector<CompletedBuffer> ActivityBuffers::take_completed() {
  std::lock_guard lock(mutex_);
  std::vector<CompletedBuffer> out(completed_.begin(), completed_.end());
  completed_.clear();
  return out;
}

void ActivityBuffers::release(uint8_t* data) {
  std::lock_guard lock(mutex_);
  free_.push_back(data);
}

}  // namespace racetrack::capture
