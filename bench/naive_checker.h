// The baseline bench_check measures `racetrack check` against: a first
// attempt at the same job, with vector clocks (hb::HappensBefore) and a
// merging std::map range map. It reads the trace on one thread, resolves
// accesses as check does, and counts the conflicting pairs of its range
// map; nothing is grouped, explained or fixed, and graph captures and
// external agents are not modelled (docs/check.md, "Speed").
#pragma once

#include <cstdint>
#include <string>

namespace racetrack::bench {

// Conflicts found in the trace at `path` (exits on a bad trace).
uint64_t naive_check(const std::string& path);

}  // namespace racetrack::bench
