// `racetrack diff` reports: text for people, JSON for tools (docs/diff.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "racetrack/diverge/first_divergence.h"

namespace racetrack::diverge {

std::string format_text(const DiffResult& result, const DiffOptions& options);
nlohmann::json to_json(const DiffResult& result, const DiffOptions& options);

}  // namespace racetrack::diverge
