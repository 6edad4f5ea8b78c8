// The check report: text for people, JSON for tools (schema in
// docs/check.md).
#pragma once

#include <string>

#include "racetrack/race/checker.h"

namespace racetrack::race {

struct ReportOptions {
  std::string trace_path;
  size_t max_groups = 20;  // groups shown in full
  Confidence min_confidence = Confidence::kLikely;
  bool list_all = false;  // JSON: every shown hazard, not only each group's first
};

std::string format_text(const CheckResult& result, const ReportOptions& options);
std::string format_json(const CheckResult& result, const ReportOptions& options);

}  // namespace racetrack::race
