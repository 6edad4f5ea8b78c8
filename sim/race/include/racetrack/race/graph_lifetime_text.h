// The words of a C16 hazard's report (graph_lifetimes.h): why it is a hazard
// and its fix, a re-capture (FixEdit::recapture) for an address freed since
// capture and an event edit for the other two shapes.
#pragma once

#include <string>

#include "racetrack/race/fix.h"
#include "racetrack/race/hazard.h"
#include "racetrack/traces/tables.h"

namespace racetrack::race {

std::string graph_lifetime_explanation(const Hazard& h, const TraceTables& tables);
Fix graph_lifetime_fix(const Hazard& h, const TraceTables& tables);

}  // namespace racetrack::race
