// `racetrack check` on several traces (the ranks of a distributed run):
// checked on the local pool, or on a Dask cluster with --dask, and merged
// into one report (docs/distributed.md).
#pragma once

#include <string>
#include <vector>

#include "racetrack/race/check_many.h"

namespace racetrack::cli {

struct RanksRun {
  std::vector<std::string> paths;
  std::string format = "text";
  size_t max_groups = 20;
  std::string dask;                      // scheduler address, or "" for the local pool
  std::vector<std::string> worker_args;  // check's options, for the Dask workers' racetrack
  race::ManyOptions many;
};

// Exit status: 2 when no trace could be checked, else 1 when a hazard group
// is shown on any trace, else 0.
int run_check_ranks(RanksRun& run);

}  // namespace racetrack::cli
