// racetrack sim: runs a trace on the model GPU under a chosen schedule with
// value tracking, demonstrates each hazard the checker finds with an
// adversarial schedule, and measures what the suggested fixes cost
// (docs/sim.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "racetrack/des/values.h"
#include "racetrack/race/checker.h"

namespace racetrack::des {

struct SimOptions {
  CostModel costs;
  Schedule schedule;                                 // slowdowns, jitter, seed, kernel slots
  std::vector<std::pair<std::string, double>> slow;  // stream name/role/id -> factor
  bool adversarial = false;
  bool apply_fixes = false;
  std::vector<race::FixEdit> add_waits;  // user edits (--add-wait)
  uint32_t jitter_schedules = 0;         // what-if: extra seeded jitter runs of the fixed trace
  race::CheckOptions check;
  size_t max_adversarial = 256;  // hazards demonstrated one by one
  std::string output;            // simulated timeline (.rtrace/.pbtxt/.json)
  Progress progress;             // loading, checking, each demonstration and what-if run
};

// Bytes that held the wrong version: read by `reader_seq` (0: in the final
// contents), expected from `expected_seq`, seen from `observed_seq` (0: the
// contents before the trace).
struct StaleBytes {
  uint64_t reader_seq = 0, expected_seq = 0, observed_seq = 0;
  uint64_t lo = 0, hi = 0;
};

// One hazard and what the simulation shows about it.
struct HazardVerdict {
  race::Hazard hazard;
  std::string schedule;  // "adversarial" or "as given"
  bool manifested = false;
  std::vector<StaleBytes> stale;  // the corrupted reads of the pair's bytes
  uint64_t tainted_ops = 0;       // the blast radius
  std::vector<std::string> tainted_regions;
};

struct WhatIf {
  bool ran = false;
  size_t edits = 0;
  int64_t makespan_ns = 0;
  double makespan_change_pct = 0;
  uint64_t hazards_left = 0;         // re-check of the fixed trace
  uint64_t corrupted_schedules = 0;  // schedules of the fixed trace that corrupted data
  uint64_t schedules_tried = 0;
};

struct SimReport {
  std::string trace;
  uint64_t ops = 0;
  int64_t makespan_ns = 0;
  uint64_t corruptions = 0;  // mismatched reads in the schedule as given
  uint64_t tainted_ops = 0;
  std::vector<HazardVerdict> hazards;
  WhatIf what_if;
  std::shared_ptr<const TraceTables> tables;
  hb::Assumptions assumptions;  // the readings the run modelled (check.assumptions)
  race::ModeUse modes;          // where the kernels' modes came from, as check says
};

Result<SimReport> simulate_file(const std::string& path, const SimOptions& options);
// The hazards sim and replay demonstrate: check's, without explanations or
// fixes, showing progress as they do. It streams, so they run it before
// loading the program and its memory is gone by then.
Result<race::CheckResult> check_to_demonstrate(const std::string& path, race::CheckOptions options,
                                               const Progress& progress);

std::string format_sim_text(const SimReport& report);
// "#9 memcpy D2H (offload)": one side of a hazard, for reports.
std::string describe_side(const race::HazardSide& side, const TraceTables& tables);
// "#13 read 1.0 MiB at 0x...: expected #9, got the initial contents".
std::string describe_stale(const StaleBytes& bytes);
// The JSON of a hazard verdict that sim and replay share: the hazard as
// check writes it, whether it manifested, and the stale bytes.
nlohmann::ordered_json verdict_json(const race::Hazard& hazard, bool manifested,
                                    const std::vector<StaleBytes>& stale, const TraceTables& tables);
std::string format_sim_json(const SimReport& report);

// Writes `path` with host and device times replaced by a run's.
Status write_timeline(const std::string& path, const std::string& out_path, const RunResult& run,
                      v1::ClockDomain domain, const std::string& producer);

}  // namespace racetrack::des
