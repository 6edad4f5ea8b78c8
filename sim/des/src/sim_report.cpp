// The sim report: text for people, JSON for tools
// (docs/schemas/sim.schema.json).
#include <cstdio>
#include <sstream>

#include "racetrack/des/simulate.h"
#include "racetrack/race/hazard_json.h"
#include "racetrack/race/report.h"

namespace racetrack::des {
namespace {

std::string ms(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

}  // namespace

std::string describe_side(const race::HazardSide& s, const TraceTables& t) {
  std::string out = "#" + std::to_string(s.seq) + " " + race::display_name(s, t) + " (" +
                    (s.stream ? t.stream_label(s.stream) : "host") + ")";
  // Where a kernel's mode came from (copies and memsets say it themselves).
  if (s.op_kind == OpKind::kKernel || s.op_kind == OpKind::kGraph)
    out += std::string(" [mode: ") + race::mode_source_name(s.access.mode_source) + "]";
  return out;
}

std::string describe_stale(const StaleBytes& b) {
  auto writer = [](uint64_t seq) {
    return seq ? "#" + std::to_string(seq) : std::string("the initial contents");
  };
  return (b.reader_seq ? "#" + std::to_string(b.reader_seq) + " read" : std::string("final contents of")) +
         " " + format_bytes(b.hi - b.lo) + " at " + hex(b.lo) + ": expected " + writer(b.expected_seq) +
         ", got " + writer(b.observed_seq);
}

std::string format_sim_text(const SimReport& r) {
  const TraceTables& t = *r.tables;
  // Mismatches name ops by index; the hazards carry the seqs we need.
  std::ostringstream out;
  out << "racetrack sim: " << r.trace << race::rank_text(t) << "\n"
      << r.ops << " ops; makespan " << ms(r.makespan_ns) << "; " << r.corruptions
      << " corrupted read(s) under the schedule as given, " << r.tainted_ops << " op(s) tainted\n"
      << race::assumptions_line(r.assumptions) << race::mode_use_text(r.modes);
  for (const HazardVerdict& v : r.hazards) {
    const race::Hazard& h = v.hazard;
    out << "\n[" << race::hazard_number(h) << "] " << race::confidence_name(h.confidence) << " "
        << race::kind_name(h.kind) << " " << race::class_name(h.cls) << ": " << describe_side(h.first, t)
        << " -> " << describe_side(h.second, t) << "\n"
        << "    " << v.schedule << " schedule: " << (v.manifested ? "MANIFESTED" : "not manifested") << "\n";
    for (size_t m = 0; m < v.stale.size() && m < 3; ++m) {
      out << "      " << describe_stale(v.stale[m]) << "\n";
    }
    if (v.manifested) {
      out << "      blast radius: " << v.tainted_ops << " op(s) computed from corrupted data";
      if (!v.tainted_regions.empty()) {
        out << "; tainted:";
        for (const auto& label : v.tainted_regions) out << " " << label;
      }
      out << "\n";
    }
  }
  if (r.hazards.empty()) out << "\nno hazard to demonstrate\n";
  if (r.what_if.ran) {
    const WhatIf& w = r.what_if;
    char pct[32];
    std::snprintf(pct, sizeof pct, "%+.2f%%", w.makespan_change_pct);
    out << "\nwhat-if: " << w.edits << " synchronisation(s) added: " << w.hazards_left
        << " hazard(s) left on re-check; " << w.corrupted_schedules << " of " << w.schedules_tried
        << " schedule(s) corrupted data; makespan " << ms(r.makespan_ns) << " -> " << ms(w.makespan_ns)
        << " (" << pct << " of the step)\n";
  }
  if (const std::string indirect = race::indirect_text(r.modes, t); !indirect.empty()) out << "\n" << indirect;
  return out.str();
}

nlohmann::ordered_json verdict_json(const race::Hazard& h, bool manifested,
                                    const std::vector<StaleBytes>& stale, const TraceTables& t) {
  using json = nlohmann::ordered_json;
  // 0 stands for "none" in StaleBytes: the final contents, the initial ones.
  auto seq = [](uint64_t s) { return s ? json(s) : json(nullptr); };
  json bytes = json::array();
  for (const StaleBytes& b : stale)
    bytes.push_back({{"reader_seq", seq(b.reader_seq)},
                     {"expected_writer_seq", seq(b.expected_seq)},
                     {"observed_writer_seq", seq(b.observed_seq)},
                     {"address", hex(b.lo)},
                     {"bytes", b.hi - b.lo}});
  return {{"hazard", race::hazard_json(h, t)}, {"manifested", manifested}, {"stale", std::move(bytes)}};
}

std::string format_sim_json(const SimReport& r) {
  using json = nlohmann::ordered_json;
  const TraceTables& t = *r.tables;
  json j;
  j["schema_version"] = race::kJsonSchemaVersion;
  j["trace"] = r.trace;
  race::add_rank_json(j, t);
  j["ops"] = r.ops;
  j["assumptions"] = race::assumptions_json(r.assumptions);
  j["access_modes"] = race::mode_use_json(r.modes, *r.tables);
  j["makespan_ns"] = r.makespan_ns;
  j["corrupted_reads"] = r.corruptions;
  j["tainted_ops"] = r.tainted_ops;
  json hazards = json::array();
  for (const HazardVerdict& v : r.hazards) {
    json hj = verdict_json(v.hazard, v.manifested, v.stale, t);
    hj["schedule"] = v.schedule == "adversarial" ? "adversarial" : "as-given";
    hj["blast_radius"] = {{"ops", v.tainted_ops}, {"regions", v.tainted_regions}};
    hazards.push_back(std::move(hj));
  }
  j["hazards"] = std::move(hazards);
  j["what_if"] = nullptr;
  if (r.what_if.ran)
    j["what_if"] = {{"edits", r.what_if.edits},
                    {"makespan_ns", r.what_if.makespan_ns},
                    {"makespan_change_pct", r.what_if.makespan_change_pct},
                    {"hazards_left", r.what_if.hazards_left},
                    {"schedules_tried", r.what_if.schedules_tried},
                    {"corrupted_schedules", r.what_if.corrupted_schedules}};
  return race::dump_json(j);
}

}  // namespace racetrack::des
