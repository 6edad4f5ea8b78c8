// The host backend: the plan run on CPU threads. Every stream is a worker
// thread taking its ops in order, every traced host thread a thread issuing
// its calls; an op waits only for what happens-before says it must (the
// program's dependencies), so unordered ops really run concurrently. Memory
// is one version word per granule (atomic): a reader compares each granule
// with the version the program-order run expects, a writer stamps its own,
// and after the run every granule must hold its program-order last writer.
#pragma once

#include <unordered_map>

#include "racetrack/des/values.h"
#include "racetrack/replay/plan.h"

namespace racetrack::replay {

struct HostRunOptions {
  bool traced_timing = true;
  std::unordered_map<uint32_t, int64_t> delays;  // op index -> ns held back
  // A held op is let go early once all of these are done (--stress: the
  // ends of its pairs' second ops, which then have overtaken it).
  std::unordered_map<uint32_t, std::vector<des::Dep>> releases;
};

// One CPU thread per stream with ops and per host thread with calls: more
// than this are refused (a clear error, not std::system_error).
inline constexpr size_t kMaxReplayThreads = 1024;

struct HostRun {
  des::RunResult times;
  // Reads that saw another version than the sequential run, then granules
  // whose final contents differ from it (reader des::kInitial), in traced
  // addresses.
  std::vector<des::Mismatch> mismatches;
};

// Fails when the run needs more than kMaxReplayThreads threads or the
// system refuses one.
Result<HostRun> run_on_host(const des::Program& program, const ArenaPlan& plan,
                            const des::SequentialReference& reference, const HostRunOptions& options);

}  // namespace racetrack::replay
