#include "racetrack/traces/prefetch.h"

#include <utility>

namespace racetrack {

PrefetchingSource::PrefetchingSource(TraceSource source) : source_(std::move(source)), size_(source_.size()) {
  // The caller's chunk, the ones queued ahead and the one being decoded.
  source_.keep_chunks(kAhead + 2);
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
    auto chunk = source_.read();
    Item item{std::move(chunk), at, source_.position()};
    const bool last = !item.chunk || !*item.chunk;
    {
      std::lock_guard lock(mutex_);
      ready_.push_back(std::move(item));
      ++produced_;
    }
    changed_.notify_all();
    if (last) return;
  }
}

Result<const v1::Chunk*> PrefetchingSource::read() {
  std::unique_lock lock(mutex_);
  ++taken_;
  changed_.notify_all();
  changed_.wait(lock, [this] { return !ready_.empty(); });
  Item item = std::move(ready_.front());
  ready_.pop_front();
  chunk_offset_ = item.at;
  position_ = item.end;
  if (!item.chunk || !*item.chunk) ready_.push_back(item);  // the end or the error, again on every call
  return item.chunk;
}

}  // namespace racetrack
