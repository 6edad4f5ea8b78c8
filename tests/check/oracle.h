// A deliberately simple reference for `racetrack check`: happens-before as an
// explicit graph over ops and graph nodes with edges read off docs/ordering-rules.md,
// reachability by search (no vector clocks), and the hazard definition of
// docs/check.md evaluated literally over every pair of accesses. Slow and
// quadratic on purpose; only for small generated programs.
#pragma once

#include "check_test_support.h"

namespace racetrack::check_test {

// Every hazard of a one-chunk trace, as check_trace with keep_all and
// min_confidence possible should report them.
HazardSet oracle_hazards(const v1::Chunk& trace);

}  // namespace racetrack::check_test
