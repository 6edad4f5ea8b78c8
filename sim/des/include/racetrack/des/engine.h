// The discrete-event model of a GPU running a Program: one timeline per host
// thread (calls take their duration; joins block), one FIFO per stream, copy
// engines per direction and a limit of concurrent kernels. Device ops start
// when their dependencies are done and a resource is free, first come first
// served by ready time, ties by submission order, so a run is deterministic.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "racetrack/des/program.h"

namespace racetrack::des {

struct Schedule {
  std::unordered_map<uint32_t, double> stream_slowdown;  // stream id -> duration factor
  double jitter_sigma = 0;  // device durations times exp(sigma * N(0, 1))
  uint64_t seed = 1;
  uint32_t kernel_slots = 128;
  uint32_t other_copy_engines = 1;
  // Ops held back: op index -> extra ns before it may start (adversarial).
  std::unordered_map<uint32_t, int64_t> delays;
  // Extra dependencies: op index -> deps of its device part (or host part for
  // host ops), e.g. the what-if fixes.
  std::unordered_map<uint32_t, std::vector<Dep>> extra_deps;
};

struct OpTimes {
  int64_t host_start = 0, issue = 0, host_end = 0;
  int64_t device_start = 0, device_end = 0;
};

// Told when ops touch memory, in time order (reads at an op's start, writes
// at its end), for value tracking.
class MemoryObserver {
 public:
  virtual ~MemoryObserver() = default;
  virtual void on_start(uint32_t op) = 0;
  virtual void on_end(uint32_t op) = 0;
};

struct RunResult {
  SpillArray<OpTimes> times;  // by op index
  int64_t makespan_ns = 0;
};

Result<RunResult> run(const Program& program, const Schedule& schedule, MemoryObserver* observer = nullptr);

}  // namespace racetrack::des
