// The hazards `racetrack check` finds, as `racetrack export` shows them
// (docs/export.md, "Hazards"): numbered as check numbers them, [N] for the
// N-th shown group in first-occurrence order.
#pragma once

#include <cstddef>
#include <vector>

#include "racetrack/race/checker.h"
#include "racetrack/traces/export.h"

namespace racetrack::cli {

// The hazard each shown group shows; with `every_occurrence`, also its other
// shown occurrences, at most `max` hazards in all (groups' own first).
std::vector<ExportHazard> export_hazards(const race::CheckResult& result, bool every_occurrence, size_t max);

}  // namespace racetrack::cli
