// Helpers shared by the `racetrack check` suites: running the checker in
// memory with every hazard kept, hazards as comparable records, applying
// fix edits to a one-chunk trace, and validating what the tests generate.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "racetrack/race/checker.h"
#include "racetrack/race/fix.h"
#include "racetrack/traces/container.h"

namespace racetrack::check_test {

// A hazard as the differential test compares them: identity, kind, the
// hull of the conflicting bytes, and class.
struct HazardRecord {
  race::HazardKey key;
  race::HazardKind kind;
  uint64_t lo = 0, hi = 0;
  race::HazardClass cls = race::HazardClass::kComputeVsCompute;
  auto operator<=>(const HazardRecord&) const = default;
};
using HazardSet = std::set<HazardRecord>;

std::string to_string(const HazardRecord& h);
std::string to_string(const HazardSet& set);

// Every hazard, whatever its confidence.
race::CheckOptions keep_all_options();
race::CheckResult check_all(const v1::Chunk& trace, race::CheckOptions options = keep_all_options());
HazardSet hazard_set(const race::CheckResult& result);

// A sample of traces/samples by file name; a failure (and an empty trace)
// when it does not load.
v1::Chunk load_sample(const std::string& file);

// The Validator's messages for a one-chunk trace (empty when valid).
std::vector<std::string> validation_errors(const v1::Chunk& trace);

// The trace in protobuf text format, for failure messages.
std::string text_format(const v1::Chunk& trace);

// The edits suggest_fix gives for every hazard in `hazards` that has one.
std::vector<race::FixEdit> fix_edits_for(const std::vector<race::Hazard>& hazards, const TraceTables& tables);
// `trace` (one chunk) rewritten with `edits` merged and applied.
v1::Chunk apply_edits(const v1::Chunk& trace, std::vector<race::FixEdit> edits);

// One hazard expected in a hand-written scenario: the key (access indices
// and graph nodes + 1 default to 0), kind and class.
struct Expected {
  uint64_t first_seq, second_seq;
  race::HazardKind kind;
  race::HazardClass cls;
  uint16_t first_access = 0, second_access = 0;
  uint16_t first_node = 0, second_node = 0;
};

// Checks `trace` with every hazard kept and expects exactly `expected`;
// returns the result.
race::CheckResult expect_hazards(const v1::Chunk& trace, const std::vector<Expected>& expected,
                                 race::CheckOptions options = keep_all_options());
// Expects the trace to check clean.
void expect_clean(const v1::Chunk& trace, race::CheckOptions options = keep_all_options());
// Every hazard of `trace` has a fix, and the trace with the fixes applied is
// valid and checks clean.
void expect_fixes_clean(const v1::Chunk& trace, race::CheckOptions options = keep_all_options());

}  // namespace racetrack::check_test
