#include "verifier_thread.h"

#include <utility>

namespace racetrack::race {

VerifierThread::VerifierThread(std::unique_ptr<FixVerifier> verifier)
    : verifier_(std::move(verifier)), thread_([this] { run(); }) {}

VerifierThread::~VerifierThread() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    queue_.clear();
    closing_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void VerifierThread::post(Work work, bool applies_chunk) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back({std::move(work), applies_chunk});
    chunks_pending_ += applies_chunk;
  }
  changed_.notify_all();
}

void VerifierThread::wait_for_chunks(size_t n) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return chunks_pending_ <= n; });
}

Result<std::unique_ptr<FixVerifier>> VerifierThread::finish() {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
  }
  changed_.notify_all();
  thread_.join();
  if (!status_) return status_.error();
  return std::move(verifier_);
}

void VerifierThread::run() {
  for (;;) {
    Item item;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [this] { return closing_ || !queue_.empty(); });
      if (queue_.empty()) return;
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    if (status_) status_ = item.work(*verifier_);
    {
      std::lock_guard lock(mutex_);
      chunks_pending_ -= item.applies_chunk;
    }
    changed_.notify_all();
  }
}

}  // namespace racetrack::race
