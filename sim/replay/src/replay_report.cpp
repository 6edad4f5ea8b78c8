// The replay report: text for people, JSON for tools
// (docs/schemas/replay.schema.json).
#include <cstdio>
#include <sstream>

#include "racetrack/race/hazard_json.h"
#include "racetrack/replay/replay.h"

namespace racetrack::replay {
std::string format_replay_text(const ReplayReport& r) {
  const TraceTables& t = *r.tables;
  std::ostringstream out;
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.0f ops/s", r.ops_per_second);
  out << "racetrack replay (" << r.backend << " backend): " << r.trace << "\n"
      << r.ops << " ops, " << r.runs << " run(s); first run " << r.wall_ns / 1000 << " us (" << rate << "); "
      << r.islands << " arena island(s), " << format_bytes(r.traced_bytes) << " traced"
      << (r.scale < 1 ? " (scaled down)" : "") << "; " << r.corrupted_reads << " corrupted read(s) seen\n"
      << race::assumptions_line(r.assumptions);
  for (const ReplayHazard& h : r.hazards) {
    out << "\n[" << race::hazard_number(h.hazard) << "] " << race::kind_name(h.hazard.kind) << " "
        << race::class_name(h.hazard.cls) << ": " << des::describe_side(h.hazard.first, t) << " -> "
        << des::describe_side(h.hazard.second, t) << "\n    "
        << (h.manifested_runs ? "MANIFESTED" : "not manifested") << " in " << h.manifested_runs << " of "
        << r.runs << " run(s)\n";
    for (size_t m = 0; m < h.stale.size() && m < 3; ++m) {
      out << "      " << des::describe_stale(h.stale[m]) << "\n";
    }
  }
  if (r.hazards.empty()) out << "\nno hazard to replay\n";
  return out.str();
}

std::string format_replay_json(const ReplayReport& r) {
  const TraceTables& t = *r.tables;
  nlohmann::ordered_json j;
  j["schema_version"] = race::kJsonSchemaVersion;
  j["trace"] = r.trace;
  j["backend"] = r.backend;
  j["ops"] = r.ops;
  j["assumptions"] = race::assumptions_json(r.assumptions);
  j["runs"] = r.runs;
  j["wall_ns"] = r.wall_ns;
  j["ops_per_second"] = r.ops_per_second;
  j["corrupted_reads"] = r.corrupted_reads;
  j["plan"] = {{"islands", r.islands}, {"traced_bytes", r.traced_bytes}, {"scale", r.scale}};
  nlohmann::ordered_json hazards = nlohmann::ordered_json::array();
  for (const ReplayHazard& h : r.hazards) {
    nlohmann::ordered_json hj = des::verdict_json(h.hazard, h.manifested_runs > 0, h.stale, t);
    hj["manifested_runs"] = h.manifested_runs;
    hazards.push_back(std::move(hj));
  }
  j["hazards"] = std::move(hazards);
  return race::dump_json(j);
}

}  // namespace racetrack::replay
