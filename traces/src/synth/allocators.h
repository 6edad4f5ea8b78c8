// Models of the two allocators an offloading run goes through, emitting the
// ops a capture would see:
// - CachingAllocator: PyTorch's device caching allocator. Blocks are carved
//   from driver segments, cached per (stream, size) and reused by address;
//   a block with uses on another stream (record_stream) returns only after an
//   event recorded on that stream has been seen complete by an event query.
// - PinnedPool: a host-side pool of pinned buffers keyed by size (Megatron's
//   OffloadTensorPool). A buffer given back records an event on the stream
//   that last read it, and the next user waits on that event first.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "emitter.h"

namespace racetrack::synth {

class CachingAllocator {
 public:
  CachingAllocator(Emitter& emitter, uint64_t segment_bytes);

  Tensor allocate(std::string label, uint64_t size, uint32_t stream);
  // Reusable at once by later allocations on the block's stream.
  void free(const Tensor& t);
  // record_stream(use_stream) then free: reuse waits for the use to finish.
  void free_after_use(const Tensor& t, uint32_t use_stream);

 private:
  struct Pending {
    Tensor block;
    uint32_t event;
  };
  // PyTorch's process_events(): query deferred frees oldest first, stopping
  // at the first one not yet complete.
  void process_events();
  uint32_t take_event();

  Emitter& emitter_;
  uint64_t segment_bytes_;
  uint64_t segment_base_ = 0, segment_used_ = 0, segment_size_ = 0;
  uint32_t segments_ = 0;
  std::map<std::pair<uint32_t, uint64_t>, std::vector<uint64_t>> free_;  // (stream, size) -> bases
  std::deque<Pending> pending_;
  std::vector<uint32_t> spare_events_;
  uint32_t events_made_ = 0;
};

class PinnedPool {
 public:
  explicit PinnedPool(Emitter& emitter) : emitter_(emitter) {}

  // A buffer for a copy on `stream`, which first waits until the buffer's
  // previous reader is done.
  Tensor take(uint64_t size, uint32_t stream);
  // Back to the pool once `reader_stream`'s queued work is done...
  void give_back(const Tensor& buffer, uint32_t reader_stream);
  // ...or at once, with no event: the C3 bug.
  void give_back_now(const Tensor& buffer);

 private:
  struct Entry {
    Tensor buffer;
    uint32_t event;  // to wait on before reuse; 0 when given back without one
  };
  Emitter& emitter_;
  std::map<uint64_t, std::vector<Entry>> free_;  // size -> entries (LIFO)
  std::map<uint64_t, uint32_t> events_;  // buffer address -> its event
  uint32_t buffers_ = 0;
};

}  // namespace racetrack::synth
