// How the injected library is configured: environment variables set by
// `racetrack capture` or by hand (cluster launchers), read once at
// InitializeInjection. Plain C++ so it is tested without CUDA.
//
//   RACETRACK_CAPTURE_OUTPUT  trace path; %p = pid, %r = rank
//                             (default racetrack-%p.rtrace)
//   RACETRACK_CAPTURE_MODE    full (default) | activity (CUPTI activity
//                             tracing only, nothing written: the cost floor)
//   RACETRACK_CAPTURE_NVTX    0 to ignore NVTX ranges and annotations
//   RACETRACK_CAPTURE_FLUSH_MS   how often the trace is extended (500)
//   RACETRACK_CAPTURE_INDEX   a file each process appends its trace path to
//   RACETRACK_CAPTURE_CODE    0 to leave module images out (their sha256 stays)
//   RACETRACK_CAPTURE_MAX_MODULE_BYTES   images stored in all (256 MiB);
//                             later ones are left out with a warning
//   RANK / OMPI_COMM_WORLD_RANK / SLURM_PROCID / PMI_RANK   the rank
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>

#include "racetrack/traces/result.h"

namespace racetrack::capture {

enum class CaptureMode { kFull, kActivityOnly };

struct CaptureConfig {
  CaptureMode mode = CaptureMode::kFull;
  std::string output_pattern = "racetrack-%p.rtrace";
  std::string index_path;  // empty: none
  bool nvtx = true;
  int rank = -1;
  int64_t flush_period_ms = 500;
  bool code = true;                          // store module images
  uint64_t max_module_bytes = 256ull << 20;  // ... up to this many bytes in all
};

using GetEnv = std::function<const char*(const char*)>;

// An error names the variable and what is wrong with its value.
Result<CaptureConfig> config_from_env(const GetEnv& getenv);

// The pattern with %p and %r filled in; a rank, when known and not in the
// pattern, goes before the extension ("out.rank3.rtrace").
std::string expand_output_path(const std::string& pattern, pid_t pid, int rank);

// Creates the trace file exclusively. When another process already holds
// `path` (several CUDA processes under one launcher), "." + pid goes before
// the extension. Returns the path created and its descriptor.
struct ClaimedOutput {
  std::string path;
  int fd = -1;
};
Result<ClaimedOutput> claim_output(const std::string& path, pid_t pid);

}  // namespace racetrack::capture
