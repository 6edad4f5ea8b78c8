// Checks many traces (the ranks of a distributed run) on a pool of threads
// sized to the cores and to the memory one check was measured to need
// (docs/distributed.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "racetrack/race/checker.h"
#include "racetrack/race/rank_merge.h"
#include "racetrack/race/report.h"

namespace racetrack::race {

struct ManyOptions {
  // The per-trace check; its progress callback is not used.
  CheckOptions check;
  ReportOptions report;       // trace_path is set per trace
  unsigned jobs = 0;          // 0: as many as cores and memory allow
  uint64_t memory_bytes = 0;  // what all checks together may use (0: no bound)
  // After each trace: how many are done, of how many.
  std::function<void(size_t done, size_t total)> progress;
};

struct PoolSize {
  unsigned jobs = 1;
  uint64_t peak_bytes = 0;  // the first check's measured growth of the peak resident set
};

// Checks the first trace alone to measure its peak, then the rest `jobs` at
// a time. Each trace's outcome is in its own slot, in the order given.
std::vector<RankReport> check_many(const std::vector<std::string>& paths, const ManyOptions& options,
                                   PoolSize* size = nullptr);

// The pool for `paths` given the first one's measured peak: bounded by the
// cores, the traces and the memory, scaling the peak by file size.
unsigned pool_jobs(const std::vector<std::string>& paths, uint64_t first_peak_bytes, uint64_t memory_bytes,
                   unsigned cores);

}  // namespace racetrack::race
