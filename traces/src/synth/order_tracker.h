// Vector clocks over the generator's own streams and host thread: enough of
// the CUDA ordering rules (stream order, enqueue, record/wait, host joins) to
// tell whether an injected pair really is unordered, so the ground truth
// never lists a pair the trace happens to order anyway. Covers exactly the
// constructs synth emits: one host thread, non-blocking side streams.
#pragma once

#include <cstdint>
#include <vector>

namespace racetrack::synth {

class OrderTracker {
 public:
  // Agent 0 is the host thread; agents 1..streams are the streams.
  struct Point {
    uint32_t agent = 0;
    uint64_t tick = 0;
  };

  explicit OrderTracker(uint32_t streams);

  // A device op enqueued on `stream` (1-based): joins the host, then ticks.
  Point device_op(uint32_t stream);
  Point host_op();
  void record(uint32_t event, uint32_t stream);
  void wait(uint32_t stream, uint32_t event);
  // Host joins.
  void join_stream(uint32_t stream);
  void join_event(uint32_t event);
  void join_all();

  // Whether `earlier` happens-before the most recent op of `agent`.
  bool ordered(Point earlier, uint32_t agent) const;

 private:
  using Clock = std::vector<uint64_t>;
  static void join(Clock& into, const Clock& from);

  std::vector<Clock> clocks_;  // per agent
  std::vector<Clock> events_;  // per event id, the last record's snapshot
};

}  // namespace racetrack::synth
