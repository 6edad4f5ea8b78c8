// racetrack replay: re-executes a trace's schedule with real concurrency
// and checks, per granule of memory, that every read sees the version the
// program-order run would (docs/replay.md). The host backend runs it on CPU
// threads (one per stream and per host thread, waits as condition
// variables); the CUDA backend needs a GPU and a build with CUDA.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "racetrack/des/simulate.h"
#include "racetrack/replay/plan.h"

namespace racetrack::replay {

struct ReplayOptions {
  std::string backend = "host";  // host or cuda
  bool stress = false;           // hold the first op of each hazard back
  uint32_t repeat = 1;
  uint64_t seed = 1;
  bool traced_timing = true;  // ops take their traced time; false: as fast as possible
  // With traced timing, durations are scaled down by one factor when their
  // sum (what a run takes if nothing overlaps) exceeds this, so a run
  // never takes much longer: 60 s.
  int64_t traced_budget_ns = 60'000'000'000;
  uint64_t granule = 4096;               // bytes per version stamp
  uint64_t memory_limit = 256ull << 20;  // arena bytes; larger footprints are scaled down
  // --stress holds the first op of each hazard back for at least the
  // pair's gap (the trace's time from its start to the second op's end)
  // plus a margin, half as long again at most (docs/replay.md).
  // `stress_ns` > 0 fixes every hold in [stress_ns / 2, stress_ns] instead
  // (--stress-ns, what --stress did before its holds were sized).
  int64_t stress_ns = 0;
  // The hold-backs of one run add up to at most this; more are spread over
  // groups that take turns across --repeat runs.
  int64_t stress_budget_ns = 10'000'000'000;
  // The margin of a sized hold-back (kHoldMarginNs). A held op is released
  // as soon as its pairs' second ops have ended, so a longer margin costs
  // time only when they cannot run first; the sanitizer tests, whose ops run
  // several times slower, use one.
  int64_t stress_margin_ns = 20'000'000;
  race::CheckOptions check;
  std::string output;  // the replayed timeline (measured times)
  Progress progress;   // loading, checking, each run
};

// How --stress held a hazard's first op back.
struct HoldBack {
  enum Sizing : uint8_t { kTracedGap, kModelledGap, kFixed } sized_from = kTracedGap;
  int64_t gap_ns = 0;                       // the pair's gap (kFixed: 0, not used)
  int64_t shortest_ns = 0, longest_ns = 0;  // the window its delays came from
  bool capped = false;                      // the budget cut it below gap + margin
  uint32_t held_runs = 0;                   // runs that held it
};

struct ReplayHazard {
  race::Hazard hazard;
  uint32_t manifested_runs = 0;
  std::vector<des::StaleBytes> stale;  // from the first run that showed it
  std::optional<HoldBack> hold_back;   // under --stress
};

struct ReplayReport {
  std::string trace, backend;
  uint64_t ops = 0;
  uint32_t runs = 0;
  double ops_per_second = 0;     // issue rate of the first run
  int64_t wall_ns = 0;           // first run
  uint64_t corrupted_reads = 0;  // over all runs
  std::vector<ReplayHazard> hazards;
  size_t islands = 0;
  uint64_t traced_bytes = 0;
  double scale = 1;
  double time_scale = 1;  // traced durations were multiplied by this (traced_budget_ns)
  // --stress: the hold-backs' budget per run and the groups that share it
  // (0 groups: no --stress, or nothing to hold).
  int64_t stress_budget_ns = 0;
  uint32_t stress_groups = 0;
  std::shared_ptr<const TraceTables> tables;
  hb::Assumptions assumptions;  // the readings the runs modelled (check.assumptions)
  race::ModeUse modes;          // where the kernels' modes came from, as check says
};

// Whether this build and machine can replay on a GPU; `why` says what is
// missing otherwise.
bool cuda_available(std::string& why);

Result<ReplayReport> replay_file(const std::string& path, const ReplayOptions& options);

std::string format_replay_text(const ReplayReport& report);
std::string format_replay_json(const ReplayReport& report);

}  // namespace racetrack::replay
