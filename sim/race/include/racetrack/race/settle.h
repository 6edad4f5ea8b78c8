// What would settle a hazard of low confidence, worded for the group it
// stands for: which kernel's which argument word lacks a mode or an extent,
// and the ways to supply it (docs/check.md, "What would settle it").
#pragma once

#include <string>

#include "racetrack/race/hazard.h"

namespace racetrack::race {

std::string settle_text(const Hazard& h, const TraceTables& tables);

// A regular expression matching a kernel by its function's base name
// ("vectorized_elementwise_kernel" for a long templated signature), for a
// suggested --kernel-modes rule.
std::string kernel_pattern(std::string_view name);

}  // namespace racetrack::race
