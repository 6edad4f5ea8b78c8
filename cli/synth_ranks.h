// `racetrack synth --ranks N`: one trace per rank of a data-parallel run.
#pragma once

#include <string>

#include "racetrack/traces/synth.h"

namespace racetrack::cli {

// `pattern` with every "%r" replaced by `rank`.
std::string rank_path(const std::string& pattern, uint32_t rank);

// Rank `rank`'s options out of `world` ranks: its own seed (seed + rank),
// rank and host in the header, and its share of the injections: the
// requested ones are dealt out one at a time, rank 0 first, so ranks carry
// different hazards (each shape keeps its @ITERATION).
SynthOptions options_for_rank(const SynthOptions& all, uint32_t rank, uint32_t world);

}  // namespace racetrack::cli
