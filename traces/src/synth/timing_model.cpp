#include "timing_model.h"

#include <algorithm>

namespace racetrack::synth {

TimingModel::TimingModel(uint32_t streams) : stream_ready_(streams + 1, 0) {}

std::pair<int64_t, int64_t> TimingModel::host_call(int64_t cost) {
  const int64_t start = host_;
  host_ += cost;
  return {start, host_};
}

std::pair<int64_t, int64_t> TimingModel::device_op(uint32_t stream, int64_t duration, Engine engine) {
  int64_t start = std::max(host_, stream_ready_[stream]);
  int64_t& engine_ready = engine_ready_[static_cast<int>(engine)];
  if (engine != Engine::kNone) start = std::max(start, engine_ready);
  const int64_t end = start + duration;
  stream_ready_[stream] = end;
  if (engine != Engine::kNone) engine_ready = end;
  return {start, end};
}

void TimingModel::record(uint32_t event, uint32_t stream) {
  if (event_time_.size() <= event) event_time_.resize(event + 1, 0);
  event_time_[event] = std::max(host_, stream_ready_[stream]);
}

void TimingModel::wait(uint32_t stream, uint32_t event) {
  if (event < event_time_.size()) stream_ready_[stream] = std::max(stream_ready_[stream], event_time_[event]);
}

void TimingModel::host_wait_stream(uint32_t stream) { host_ = std::max(host_, stream_ready_[stream]); }

void TimingModel::host_wait_all() {
  for (int64_t t : stream_ready_) host_ = std::max(host_, t);
}

void TimingModel::host_wait_event(uint32_t event) {
  if (event < event_time_.size()) host_ = std::max(host_, event_time_[event]);
}

bool TimingModel::event_done(uint32_t event) const {
  return event >= event_time_.size() || event_time_[event] <= host_;
}

}  // namespace racetrack::synth
