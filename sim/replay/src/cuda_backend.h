// The CUDA backend: a LaunchList run on the GPU (docs/replay.md). One CUDA
// stream per traced stream (traced flags and priority, the legacy default
// stream where the trace used it), one host thread per traced thread, real
// copies and memsets between a pinned host arena and a device arena,
// synthetic kernels that check and stamp version words per granule and take
// the traced time (spinning on %globaltimer), and done events for every
// ordering the program needs. This header is plain C++: the implementation
// (cuda_backend.cu) is built only where nvcc works, and defines
// RACETRACK_HAVE_CUDA_BACKEND for racetrack_replay.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cuda_launch_list.h"

namespace racetrack::replay {

// One op's times in ns since the run started; device_start < 0 when nothing
// ran on the device for it (event records and waits, stream-ordered allocs).
struct MeasuredTimes {
  int64_t host_start = 0, issue = 0, host_end = 0;
  int64_t device_start = -1, device_end = -1;
};

// What one run on the GPU measured, before it is mapped back to the trace.
struct DeviceRun {
  std::vector<MeasuredTimes> times;                 // by op index
  std::vector<GranuleMismatch> log;                 // from GPU kernels and host-side checks
  std::vector<std::vector<uint32_t>> final_stamps;  // by LaunchList::arenas index
};

class CudaBackend {
 public:
  // Allocates the arenas and creates the streams and events; nullptr with
  // `error` set when the GPU cannot run the list.
  static std::unique_ptr<CudaBackend> create(const LaunchList& launches, std::string& error);
  virtual ~CudaBackend() = default;

  // One run: ops in `delays` (op index -> ns) are held back before they
  // start; traced_timing makes every op take its traced duration.
  virtual bool run(const std::unordered_map<uint32_t, int64_t>& delays, bool traced_timing, DeviceRun& out,
                   std::string& error) = 0;
};

// Whether the CUDA runtime finds a usable GPU; `why` says what is missing.
bool cuda_runtime_ready(std::string& why);

}  // namespace racetrack::replay
