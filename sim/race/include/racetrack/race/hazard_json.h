// The JSON that check, sim and replay share: the version every output
// carries and the hazard object (docs/schemas/hazard.schema.json), built in
// one place so the same hazard has the same shape everywhere.
#pragma once

#include <nlohmann/json.hpp>

#include "racetrack/hb/assumptions.h"
#include "racetrack/race/hazard.h"

namespace racetrack::race {

// The top-level "schema_version" of every JSON output (docs/schemas/README.md
// says when it changes).
inline constexpr int kJsonSchemaVersion = 3;

nlohmann::ordered_json hazard_json(const Hazard& hazard, const TraceTables& tables);

// The "assumptions" object of check, sim and replay: each assumption's name
// and value, the readings the verdicts hold under.
nlohmann::ordered_json assumptions_json(const hb::Assumptions& assumptions);
// The same for text reports: "assumptions: NAME=VALUE, ..." and a newline.
std::string assumptions_line(const hb::Assumptions& assumptions);

// A side's title for people, long kernel names shortened ("display_name").
std::string display_name(const HazardSide& side, const TraceTables& tables);

// A document as every command prints it: indented, newline-terminated.
std::string dump_json(const nlohmann::ordered_json& document);

// The enum value JSON uses for a name people read: "D2H" -> "d2h".
std::string json_id(std::string_view name);

// JSON null for an empty string (a name or label the trace does not give).
nlohmann::ordered_json string_or_null(std::string_view text);

}  // namespace racetrack::race
