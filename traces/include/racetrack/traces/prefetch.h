#pragma once
// Reads a trace's chunks on a thread of their own, up to two chunks ahead
// of the caller: decoding and validating chunk n+1 overlaps the caller's work
// on chunk n (docs/check.md, "Speed"). A chunk is validated by the thread with
// time to spare: the caller, when it has already taken every chunk decoded
// before (the reader is the slower one); the reader, when chunks wait for
// the caller.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>

#include "racetrack/traces/trace_io.h"

namespace racetrack {

class PrefetchingSource {
 public:
  // Which thread validates each chunk; tests pin it, everyone else lets the
  // one with time to spare do it.
  enum class Validation { kSpareThread, kReader, kCaller };
  // `kept_behind`: chunks read() returned that stay valid after it returns
  // a newer one (the check's fix verifier runs that far behind).
  explicit PrefetchingSource(TraceSource source, Validation validation = Validation::kSpareThread,
                             size_t kept_behind = 0);
  PrefetchingSource(const PrefetchingSource&) = delete;
  PrefetchingSource& operator=(const PrefetchingSource&) = delete;
  ~PrefetchingSource();

  // As TraceSource::read: the next chunk, valid until the next call; nullptr
  // at a clean end; the source's error, once, where reading stopped.
  Result<const v1::Chunk*> read();
  // The file offset the chunk read() last returned started at, and the
  // offset just past it (for errors and progress).
  uint64_t chunk_offset() const { return chunk_offset_; }
  uint64_t position() const { return position_; }
  uint64_t size() const { return size_; }
  // Another thread of the caller's now competes for the cores (the check's
  // fix verifier): the caller is then the slower side, and validates only
  // the chunks it is already waiting for.
  void another_thread_busy();

 private:
  struct Item {
    Result<const v1::Chunk*> chunk;
    uint64_t at = 0, end = 0;
    bool caller_admits = false;  // left for read() to validate
  };
  void run();
  // Validates a decoded chunk on the reader thread, or leaves it to the
  // caller; at the end, the end's rule once every chunk is validated.
  void admit_on_reader(Item& item);
  bool caller_should_admit() const;  // with mutex_ held

  // Chunks the reader may hold decoded beyond the one the caller uses: two,
  // so a thread that briefly loses its core to a third (the check's fix
  // verifier) does not stall the others (0.95x check time, +1 chunk arena).
  static constexpr uint64_t kAhead = 2;
  TraceSource source_;
  const uint64_t size_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Item> ready_;
  uint64_t taken_ = 0;     // read() calls so far (the caller's chunk is taken_ - 1)
  uint64_t produced_ = 0;  // chunks the thread has read
  uint64_t admitted_ = 0;  // chunks validated, in order (by either thread)
  bool caller_waiting_ = false;
  bool another_thread_busy_ = false;
  const Validation validation_;
  bool stop_ = false;
  uint64_t chunk_offset_ = 0, position_ = 0;
  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace racetrack
