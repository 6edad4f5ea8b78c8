// Runs a FixVerifier on a thread of its own (docs/check.md, "Verifying
// fixes"): the check posts the hazards it reports and the chunks it is done
// with, in order, and goes on checking while they are applied.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "fix_verifier.h"
#include "racetrack/traces/result.h"

namespace racetrack::race {

class VerifierThread {
 public:
  using Work = std::function<Status(FixVerifier&)>;

  explicit VerifierThread(std::unique_ptr<FixVerifier> verifier);
  VerifierThread(const VerifierThread&) = delete;
  VerifierThread& operator=(const VerifierThread&) = delete;
  // Drops what is still queued (the check stopped early) and joins.
  ~VerifierThread();

  // Queues work, done in the order posted; `applies_chunk`: it applies a
  // chunk, counted by wait_for_chunks.
  void post(Work work, bool applies_chunk = false);
  // Blocks until at most `n` posted chunks are still to be applied (the
  // reader may then reuse the memory of the others).
  void wait_for_chunks(size_t n);
  // Does everything posted, then gives the verifier, or the first error.
  Result<std::unique_ptr<FixVerifier>> finish();

 private:
  struct Item {
    Work work;
    bool applies_chunk = false;
  };
  void run();

  std::unique_ptr<FixVerifier> verifier_;
  Status status_ = Ok{};  // the worker's; read after it is joined
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Item> queue_;
  size_t chunks_pending_ = 0;
  bool closing_ = false;
  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace racetrack::race
