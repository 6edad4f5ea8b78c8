// A simple timing model for synth's device timestamps: the host issues calls
// at a modelled cost, each stream runs its ops in order, an op starts when
// its host call returned, its stream is free, the events it waits on have
// fired and (for copies) the copy engine of its direction is free. Host
// synchronisation blocks the host until the target completes.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace racetrack::synth {

enum class Engine { kNone, kH2D, kD2H };

class TimingModel {
 public:
  explicit TimingModel(uint32_t streams);

  int64_t host_now() const { return host_; }
  // A host call of `cost` ns: returns its [start, end).
  std::pair<int64_t, int64_t> host_call(int64_t cost);
  // A device op on `stream` issued by the host call just made.
  std::pair<int64_t, int64_t> device_op(uint32_t stream, int64_t duration, Engine engine);
  void record(uint32_t event, uint32_t stream);
  void wait(uint32_t stream, uint32_t event);
  void host_wait_stream(uint32_t stream);
  void host_wait_all();
  void host_wait_event(uint32_t event);
  // Whether the last record of `event` has fired by now (host view).
  bool event_done(uint32_t event) const;

 private:
  int64_t host_ = 0;
  std::vector<int64_t> stream_ready_;
  std::vector<int64_t> event_time_;
  int64_t engine_ready_[3] = {0, 0, 0};
};

}  // namespace racetrack::synth
