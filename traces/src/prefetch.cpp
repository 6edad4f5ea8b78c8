#include "racetrack/traces/prefetch.h"

#include <utility>

namespace racetrack {

PrefetchingSource::PrefetchingSource(TraceSource source, Validation validation, size_t kept_behind)
    : source_(std::move(source)), size_(source_.size()), validation_(validation) {
  // The caller's chunk and those it keeps, the ones queued ahead and the
  // one being decoded.
  source_.keep_chunks(kAhead + 2 + kept_behind);
  thread_ = std::thread([this] { run(); });
}

PrefetchingSource::~PrefetchingSource() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void PrefetchingSource::run() {
  for (;;) {
    {
      // Decoding chunk n reuses the arena of chunk n - (kAhead + 2), which
      // the caller released when it took chunk n - kAhead - 1.
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [this] { return stop_ || produced_ < taken_ + kAhead; });
      if (stop_) return;
    }
    const uint64_t at = source_.position();
    Item item{source_.decode(), at, source_.position()};
    admit_on_reader(item);
    const bool last = !item.chunk || !*item.chunk;
    {
      std::lock_guard lock(mutex_);
      if (stop_) return;  // the caller found an error in a chunk it validated
      ready_.push_back(std::move(item));
      ++produced_;
      if (!ready_.back().caller_admits) ++admitted_;
    }
    changed_.notify_all();
    if (last) return;
  }
}

bool PrefetchingSource::caller_should_admit() const {
  switch (validation_) {
    case Validation::kReader: return false;
    case Validation::kCaller: return true;
    case Validation::kSpareThread: break;
  }
  // Nothing queued for the caller: it keeps pace with the reader, so it is
  // the thread with time to spare (clean check 0.98x, docs/check.md "Speed").
  return caller_waiting_ || (!another_thread_busy_ && ready_.empty());
}

void PrefetchingSource::another_thread_busy() {
  std::lock_guard lock(mutex_);
  another_thread_busy_ = true;
}

void PrefetchingSource::admit_on_reader(Item& item) {
  if (!item.chunk) return;
  const bool end = !*item.chunk;
  {
    std::unique_lock lock(mutex_);
    if (!end && caller_should_admit()) {
      item.caller_admits = true;
      return;
    }
    // The validator takes chunks in order: those left to the caller first.
    changed_.wait(lock, [this] { return stop_ || admitted_ == produced_; });
    if (stop_) return;
  }
  Status status = end ? source_.at_end() : source_.admit(**item.chunk, item.at);
  if (!status) item.chunk = status.error();
}

Result<const v1::Chunk*> PrefetchingSource::read() {
  std::unique_lock lock(mutex_);
  ++taken_;
  changed_.notify_all();
  caller_waiting_ = ready_.empty();
  // Waiting, the caller maps in the arenas the reader will decode into, a
  // piece at a time, so the reader does not stop to fault them in.
  while (ready_.empty()) {
    lock.unlock();
    const bool more = source_.prefault_some();
    lock.lock();
    if (!more) break;
  }
  changed_.wait(lock, [this] { return !ready_.empty(); });
  caller_waiting_ = false;
  Item item = std::move(ready_.front());
  ready_.pop_front();
  chunk_offset_ = item.at;
  position_ = item.end;
  if (item.caller_admits) {
    lock.unlock();
    Status status = source_.admit(**item.chunk, item.at);  // the reader decodes meanwhile
    lock.lock();
    item.caller_admits = false;
    ++admitted_;
    if (!status) {
      item.chunk = status.error();
      ready_.clear();
      stop_ = true;  // nothing after an invalid chunk is read
    }
    changed_.notify_all();
  }
  if (!item.chunk || !*item.chunk) ready_.push_back(item);  // the end or the error, again on every call
  return item.chunk;
}

}  // namespace racetrack
