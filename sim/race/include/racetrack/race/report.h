// The check report: text for people, JSON for tools
// (docs/schemas/check.schema.json).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "racetrack/race/checker.h"

namespace racetrack::race {

struct ReportOptions {
  std::string trace_path;
  size_t max_groups = 20;  // groups shown in full
  Confidence min_confidence = Confidence::kLikely;
  bool list_all = false;       // JSON: every shown hazard, not only each group's first
  size_t max_hazards = 10000;  // with list_all: the most hazards listed
};

// The hazards list_all would list without a bound: every hazard of a
// shown group.
uint64_t hazards_to_list(const CheckResult& result);

// The groups that are neither shown nor suppressed, strongest first: by
// evidence (confidence, anchored, finer extent), then count, then number.
std::vector<const HazardGroup*> ranked_not_shown(const CheckResult& result);

std::string format_text(const CheckResult& result, const ReportOptions& options);
// " (rank R on host H)" from the trace's header, "" when it names neither;
// and JSON's "rank" and "host" (null when it does not name them).
std::string rank_text(const TraceTables& tables);
void add_rank_json(nlohmann::ordered_json& j, const TraceTables& tables);

// Where a kernel access's mode came from, for text reports: "(machine code)";
// "" for an unknown mode ("mode unknown" says it).
std::string mode_source_text(const ResolvedAccess& access);
// "kernel modes: N launch(es); ..." and the notes of machine code not
// analysed; "" when neither machine code nor rules were involved.
std::string mode_use_text(const ModeUse& use);
// The caveat for NCCL collectives launched without their buffers; "" when
// there are none.
std::string collectives_text(const ModeUse& use);
// The caveat for kernels that reach memory through pointers no argument
// word gives; "" when there are none.
std::string indirect_text(const ModeUse& use, const TraceTables& tables);
// JSON `access_modes` (docs/schemas/check.schema.json), shared by sim and replay.
nlohmann::ordered_json mode_use_json(const ModeUse& use, const TraceTables& tables);
// Written as it is built: with list_all, hazard by hazard.
void write_json(std::ostream& out, const CheckResult& result, const ReportOptions& options);

}  // namespace racetrack::race
