// The capturer's background side: owns the trace file and the assembler,
// and every flush period moves API events (from the per-thread logs) and
// activity records (from completed CUPTI buffers) into the trace. Also the
// end of the capture: at exit, on SIGINT/SIGTERM, and the fork guard.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "capture_config.h"
#include "shim/activity_buffers.h"
#include "shim/module_images.h"
#include "thread_log.h"
#include "trace_assembler.h"

namespace racetrack::capture {

// One application thread's log, and the seq of the outermost call it is
// inside (kIdle when none): the collector writes no op at or past it.
struct ThreadSlot {
  static constexpr uint64_t kIdle = UINT64_MAX;
  ThreadLog log;
  std::atomic<uint64_t> inflight{kIdle};
};

class Collector {
 public:
  // Opens the trace file and starts the flusher thread, which decodes the
  // activity buffers CUPTI completes into `buffers`.
  static Result<std::unique_ptr<Collector>> start(const CaptureConfig& config, ActivityBuffers* buffers);
  ~Collector();

  ThreadSlot* register_thread();  // once per application thread
  std::atomic<uint64_t>& next_seq() { return next_seq_; }
  // Where loading threads leave module images (before logging the load).
  ModuleImages& module_images() { return module_images_; }

  // A signal arrived: make what is captured so far durable (`final`: and end
  // the trace, the process is about to die). Async-signal-safe; waits at
  // most a few seconds.
  void request_flush_from_signal(bool final);
  // The normal end (atexit): forced CUPTI flush, everything written, file
  // closed, a summary line on stderr.
  void stop();
  // fork(): hold off cycles while the process is copied.
  void before_fork() { cycle_mutex_.lock(); }
  void after_fork() { cycle_mutex_.unlock(); }

  bool finished() const { return finished_.load(std::memory_order_acquire); }

 private:
  Collector(const CaptureConfig& config, ActivityBuffers* buffers, std::string path, TraceWriter writer);
  void run();
  void cycle(bool final);

  CaptureConfig config_;
  std::string path_;
  TraceWriter writer_;
  std::unique_ptr<TraceAssembler> assembler_;
  ActivityBuffers* buffers_;
  ModuleImages module_images_;
  std::atomic<uint64_t> next_seq_{1};

  std::mutex slots_mutex_;
  std::vector<std::unique_ptr<ThreadSlot>> slots_;

  std::mutex cycle_mutex_;              // one cycle at a time (flusher, exit, fork)
  std::atomic<int> signal_request_{0};  // 1 flush, 2 final
  std::atomic<bool> stopping_{false};
  std::atomic<bool> finished_{false};
  uint64_t corrupt_buffers_ = 0;
  std::thread thread_;
};

}  // namespace racetrack::capture
