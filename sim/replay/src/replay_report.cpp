// The replay report: text for people, JSON for tools
// (docs/schemas/replay.schema.json).
#include <cstdio>
#include <sstream>

#include "racetrack/race/hazard_json.h"
#include "racetrack/race/report.h"
#include "racetrack/replay/replay.h"

namespace racetrack::replay {
namespace {

std::string milliseconds(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms", static_cast<double>(ns) / 1e6);
  return text;
}

const char* sizing_id(HoldBack::Sizing s) {
  switch (s) {
    case HoldBack::kTracedGap: return "traced-gap";
    case HoldBack::kModelledGap: return "modelled-gap";
    case HoldBack::kFixed: return "stress-ns";
  }
  return "";
}

// "held back 93.0-139.5 ms in 2 of 2 run(s), sized from the pair's traced gap (62.0 ms)".
std::string describe_hold(const HoldBack& b, const ReplayReport& r) {
  if (!b.held_runs)
    return "not held in any run: the hold-backs take " + std::to_string(r.stress_groups) +
           " runs in turn to fit the budget of " + milliseconds(r.stress_budget_ns) + " per run; --repeat " +
           std::to_string(r.stress_groups) + " holds each once";
  char window[64];
  std::snprintf(window, sizeof window, "%.1f-%.1f ms", static_cast<double>(b.shortest_ns) / 1e6,
                static_cast<double>(b.longest_ns) / 1e6);
  std::string out = std::string("held back ") + window + " in " + std::to_string(b.held_runs) + " of " +
                    std::to_string(r.runs) + " run(s), ";
  out += b.sized_from == HoldBack::kFixed
             ? std::string("fixed by --stress-ns")
             : std::string("sized from the pair's ") +
                   (b.sized_from == HoldBack::kTracedGap ? "traced" : "modelled") + " gap (" +
                   milliseconds(b.gap_ns) + ")";
  if (b.capped) out += ", capped by the budget of " + milliseconds(r.stress_budget_ns) + " per run";
  return out;
}

}  // namespace

std::string format_replay_text(const ReplayReport& r) {
  const TraceTables& t = *r.tables;
  std::ostringstream out;
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.0f ops/s", r.ops_per_second);
  out << "racetrack replay (" << r.backend << " backend): " << r.trace << race::rank_text(*r.tables) << "\n"
      << r.ops << " ops, " << r.runs << " run(s); first run " << r.wall_ns / 1000 << " us (" << rate << "); "
      << r.islands << " arena island(s), " << format_bytes(r.traced_bytes) << " traced"
      << (r.scale < 1 ? " (scaled down)" : "") << "; " << r.corrupted_reads << " corrupted read(s) seen\n"
      << race::assumptions_line(r.assumptions) << race::mode_use_text(r.modes);
  if (r.stress_groups > 1)
    out << "--stress: the hold-backs take " << r.stress_groups << " runs in turn to fit the budget of "
        << milliseconds(r.stress_budget_ns) << " per run\n";
  for (const ReplayHazard& h : r.hazards) {
    out << "\n[" << race::hazard_number(h.hazard) << "] " << race::kind_name(h.hazard.kind) << " "
        << race::class_name(h.hazard.cls) << ": " << des::describe_side(h.hazard.first, t) << " -> "
        << des::describe_side(h.hazard.second, t) << "\n    "
        << (h.manifested_runs ? "MANIFESTED" : "not manifested") << " in " << h.manifested_runs << " of "
        << r.runs << " run(s)\n";
    if (h.hold_back) out << "    " << describe_hold(*h.hold_back, r) << "\n";
    for (size_t m = 0; m < h.stale.size() && m < 3; ++m) {
      out << "      " << des::describe_stale(h.stale[m]) << "\n";
    }
  }
  if (r.hazards.empty()) out << "\nno hazard to replay\n";
  if (const std::string indirect = race::indirect_text(r.modes, t); !indirect.empty()) out << "\n" << indirect;
  return out.str();
}

std::string format_replay_json(const ReplayReport& r) {
  const TraceTables& t = *r.tables;
  nlohmann::ordered_json j;
  j["schema_version"] = race::kJsonSchemaVersion;
  j["trace"] = r.trace;
  race::add_rank_json(j, t);
  j["backend"] = r.backend;
  j["ops"] = r.ops;
  j["assumptions"] = race::assumptions_json(r.assumptions);
  j["access_modes"] = race::mode_use_json(r.modes, *r.tables);
  j["runs"] = r.runs;
  j["wall_ns"] = r.wall_ns;
  j["ops_per_second"] = r.ops_per_second;
  j["corrupted_reads"] = r.corrupted_reads;
  j["plan"] = {{"islands", r.islands}, {"traced_bytes", r.traced_bytes}, {"scale", r.scale}};
  if (r.stress_budget_ns) {
    j["stress"]["budget_ns"] = r.stress_budget_ns;
    j["stress"]["groups"] = r.stress_groups;
  } else {
    j["stress"] = nullptr;
  }
  nlohmann::ordered_json hazards = nlohmann::ordered_json::array();
  for (const ReplayHazard& h : r.hazards) {
    nlohmann::ordered_json hj = des::verdict_json(h.hazard, h.manifested_runs > 0, h.stale, t);
    hj["manifested_runs"] = h.manifested_runs;
    if (h.hold_back) {
      const HoldBack& b = *h.hold_back;
      nlohmann::ordered_json hold;
      hold["sized_from"] = sizing_id(b.sized_from);
      hold["gap_ns"] =
          b.sized_from == HoldBack::kFixed ? nlohmann::ordered_json() : nlohmann::ordered_json(b.gap_ns);
      hold["shortest_ns"] = b.shortest_ns;
      hold["longest_ns"] = b.longest_ns;
      hold["capped"] = b.capped;
      hold["held_runs"] = b.held_runs;
      hj["hold_back"] = std::move(hold);
    } else {
      hj["hold_back"] = nullptr;
    }
    hazards.push_back(std::move(hj));
  }
  j["hazards"] = std::move(hazards);
  return race::dump_json(j);
}

}  // namespace racetrack::replay
