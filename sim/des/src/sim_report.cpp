// The sim report: text for people, JSON for tools (schema in docs/sim.md).
#include <cstdio>
#include <sstream>

#include "racetrack/des/simulate.h"

namespace racetrack::des {
namespace {

std::string ms(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

}  // namespace

std::string describe_side(const race::HazardSide& s, const TraceTables& t) {
  std::string title = s.op_kind == OpKind::kMemcpy ? "memcpy " + std::string(direction_name(s.direction))
                      : s.name ? std::string(op_kind_name(s.op_kind)) + " " + std::string(t.string(s.name))
                               : std::string(op_kind_name(s.op_kind));
  if (title.size() > 70) title = title.substr(0, 67) + "...";
  return "#" + std::to_string(s.seq) + " " + title + " (" + (s.stream ? t.stream_label(s.stream) : "host") + ")";
}

std::string describe_stale(const StaleBytes& b) {
  auto writer = [](uint64_t seq) { return seq ? "#" + std::to_string(seq) : std::string("the initial contents"); };
  return (b.reader_seq ? "#" + std::to_string(b.reader_seq) + " read" : std::string("final contents of")) + " " +
         format_bytes(b.hi - b.lo) + " at " + hex(b.lo) + ": expected " + writer(b.expected_seq) + ", got " +
         writer(b.observed_seq);
}

std::string format_sim_text(const SimReport& r) {
  const TraceTables& t = *r.tables;
  // Mismatches name ops by index; the hazards carry the seqs we need.
  std::ostringstream out;
  out << "racetrack sim: " << r.trace << "\n"
      << r.ops << " ops; makespan " << ms(r.makespan_ns) << "; " << r.corruptions
      << " corrupted read(s) under the schedule as given, " << r.tainted_ops << " op(s) tainted\n";
  for (size_t k = 0; k < r.hazards.size(); ++k) {
    const HazardVerdict& v = r.hazards[k];
    const race::Hazard& h = v.hazard;
    out << "\n[" << k + 1 << "] " << race::confidence_name(h.confidence) << " " << race::kind_name(h.kind) << " "
        << race::class_name(h.cls) << ": " << describe_side(h.first, t) << " -> " << describe_side(h.second, t) << "\n"
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
    out << "\nwhat-if: " << w.edits << " synchronisation(s) added: " << w.hazards_left << " hazard(s) left on re-check; "
        << w.corrupted_schedules << " of " << w.schedules_tried << " schedule(s) corrupted data; makespan "
        << ms(r.makespan_ns) << " -> " << ms(w.makespan_ns) << " (" << pct << " of the step)\n";
  }
  return out.str();
}

nlohmann::ordered_json verdict_json(const race::Hazard& h, bool manifested, const std::vector<StaleBytes>& stale,
                                    const TraceTables& t) {
  nlohmann::ordered_json j;
  j["first_seq"] = h.first.seq;
  j["second_seq"] = h.second.seq;
  j["first"] = describe_side(h.first, t);
  j["second"] = describe_side(h.second, t);
  j["kind"] = std::string(race::kind_name(h.kind));
  j["class"] = std::string(race::class_name(h.cls));
  j["confidence"] = std::string(race::confidence_name(h.confidence));
  j["manifested"] = manifested;
  nlohmann::ordered_json bytes = nlohmann::ordered_json::array();
  for (const StaleBytes& b : stale)
    bytes.push_back({{"reader_seq", b.reader_seq},
                     {"expected_writer_seq", b.expected_seq},
                     {"observed_writer_seq", b.observed_seq},
                     {"address", hex(b.lo)},
                     {"bytes", b.hi - b.lo}});
  j["stale"] = std::move(bytes);
  return j;
}

std::string format_sim_json(const SimReport& r) {
  const TraceTables& t = *r.tables;
  nlohmann::ordered_json j;
  j["trace"] = r.trace;
  j["ops"] = r.ops;
  j["makespan_ns"] = r.makespan_ns;
  j["corrupted_reads"] = r.corruptions;
  j["tainted_ops"] = r.tainted_ops;
  nlohmann::ordered_json hazards = nlohmann::ordered_json::array();
  for (const HazardVerdict& v : r.hazards) {
    nlohmann::ordered_json hj = verdict_json(v.hazard, v.manifested, v.stale, t);
    hj["schedule"] = v.schedule;
    hj["blast_radius"] = {{"ops", v.tainted_ops}, {"regions", v.tainted_regions}};
    hazards.push_back(std::move(hj));
  }
  j["hazards"] = std::move(hazards);
  if (r.what_if.ran)
    j["what_if"] = {{"edits", r.what_if.edits},
                    {"makespan_ns", r.what_if.makespan_ns},
                    {"makespan_change_pct", r.what_if.makespan_change_pct},
                    {"hazards_left", r.what_if.hazards_left},
                    {"schedules_tried", r.what_if.schedules_tried},
                    {"corrupted_schedules", r.what_if.corrupted_schedules}};
  return j.dump(2) + "\n";
}

}  // namespace racetrack::des
