// The host backend: the plan run on CPU threads. Every stream is a worker
// thread taking its ops in order, every traced host thread a thread issuing
// its calls; an op waits only for what happens-before says it must (the
// program's dependencies), so unordered ops really run concurrently. Memory
// is one version word per granule (atomic): a reader compares each granule
// with the version the program-order run expects, a writer stamps its own.
#pragma once

#include <unordered_map>

#include "racetrack/des/values.h"
#include "racetrack/replay/plan.h"

namespace racetrack::replay {

struct HostRunOptions {
  bool traced_timing = true;
  std::unordered_map<uint32_t, int64_t> delays;  // op index -> ns held back
};

struct HostRun {
  des::RunResult times;
  std::vector<des::Mismatch> mismatches;
};

HostRun run_on_host(const des::Program& program, const ArenaPlan& plan, const des::ValueTracker& reference,
                    const HostRunOptions& options);

}  // namespace racetrack::replay
