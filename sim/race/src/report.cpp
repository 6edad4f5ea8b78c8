#include "racetrack/race/report.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "racetrack/race/hazard_json.h"

namespace racetrack::race {
namespace {

std::string space_text(SpaceKey space) {
  return space == kHostSpace ? "host memory" : "device " + std::to_string(space - 1) + " memory";
}

std::string where(const HazardSide& s, const TraceTables& t) {
  if (!s.stream) {
    const v1::HostThread* th = t.thread(s.thread);
    return "host thread " + (th && th->name() ? std::string(t.string(th->name())) : std::to_string(s.thread));
  }
  return t.stream_label(s.stream);
}

std::string mode_text(const HazardSide& s) {
  const ResolvedAccess& a = s.access;
  std::string m = a.reads && a.writes ? "reads+writes" : a.writes ? "writes" : "reads";
  if (!a.mode_known) m = "may write (mode unknown)";
  if (s.op_kind != OpKind::kMemcpy && s.op_kind != OpKind::kMemset && a.mode_source != ModeSource::kUnknown)
    m += " " + mode_source_text(a);
  if (a.precision != v1::PRECISION_EXACT) m += ", " + std::string(precision_name(a.precision)) + " extent";
  return m;
}

std::string region_text(const HazardSide& s, const TraceTables& t) {
  return s.region_label ? "\"" + std::string(t.string(s.region_label)) + "\"" : std::string("unnamed memory");
}

void side_line(std::ostringstream& out, const char* label, const HazardSide& s, const TraceTables& t) {
  out << "    " << label << " #" << s.seq << " " << side_title(s, t) << " on " << where(s, t) << ", "
      << mode_text(s) << " " << region_text(s, t);
  if (s.nvtx) out << "\n            nvtx " << t.string(s.nvtx);
  if (s.stack) out << "\n            stack " << t.string(s.stack);
  if (s.access.indirect)
    out << "\n            also reaches memory through pointers no argument word gives (its machine code "
           "loads them): those accesses are not checked";
  out << "\n";
}

std::string evidence_text(const Evidence& e) {
  std::string out(confidence_name(e.confidence));
  if (e.anchored) out += ", anchored";
  if (e.extent != v1::PRECISION_EXACT) out += ", " + std::string(precision_name(e.extent)) + " extent";
  return out;
}

constexpr size_t kNotShownListed = 10;

}  // namespace

std::string mode_source_text(const ResolvedAccess& a) {
  switch (a.mode_source) {
    case ModeSource::kRecorded: return "(recorded)";
    case ModeSource::kMachineCode:
      return a.mode_known ? "(machine code)" : "(machine code cannot follow the pointer)";
    case ModeSource::kRule: return "(--kernel-modes rule)";
    default: return {};  // "mode unknown" says it
  }
}

std::string mode_use_text(const ModeUse& use) {
  const auto& n = use.launches;
  const uint64_t total = n[0] + n[1] + n[2] + n[3];
  const uint64_t code = n[static_cast<int>(ModeSource::kMachineCode)];
  const uint64_t rule = n[static_cast<int>(ModeSource::kRule)];
  if (!code && !rule && use.notes.empty()) return {};
  std::string out = "kernel modes: " + std::to_string(total) + " launch(es); " +
                    std::to_string(n[static_cast<int>(ModeSource::kRecorded)]) + " recorded, " +
                    std::to_string(code) + " from machine code, " + std::to_string(rule) +
                    " from --kernel-modes rules, " +
                    std::to_string(n[static_cast<int>(ModeSource::kUnknown)]) + " unknown\n";
  for (const std::string& note : use.notes) out += "  " + note + "\n";
  return out;
}

std::string collectives_text(const ModeUse& use) {
  if (!use.unknown_collective_launches) return {};
  std::string names;
  for (const std::string& c : use.unknown_collectives) names += (names.empty() ? "" : ", ") + c;
  return "note: " + std::to_string(use.unknown_collective_launches) + " NCCL collective launch(es) (" + names +
         ") have no recorded buffers: NCCL passes them in a work struct, not in argument words, so what they "
         "read and write is not checked (capture --torch records them; docs/distributed.md)\n";
}

std::string indirect_text(const ModeUse& use, const TraceTables& t) {
  if (use.indirect_kernels.empty()) return {};
  std::string out = "note: " + std::to_string(use.indirect_kernels.size()) + " kernel(s), launched " +
                    std::to_string(use.indirect_launches) +
                    " time(s), also reach memory through pointers no argument word gives (loaded from memory "
                    "or module globals); those accesses are not checked, so this report cannot call them "
                    "race-free:\n";
  size_t listed = 0;
  for (uint32_t name : use.indirect_kernels) {
    if (++listed > 5) {
      out += "  ... and " + std::to_string(use.indirect_kernels.size() - 5) + " more\n";
      break;
    }
    out += "  " + std::string(t.string(name)) + "\n";
  }
  return out;
}

std::vector<const HazardGroup*> ranked_not_shown(const CheckResult& r) {
  std::vector<const HazardGroup*> out;
  for (const HazardGroup& g : r.groups)
    if (!g.shown && !g.suppressed) out.push_back(&g);
  std::stable_sort(out.begin(), out.end(), [](const HazardGroup* a, const HazardGroup* b) {
    if (stronger(a->evidence, b->evidence) || stronger(b->evidence, a->evidence))
      return stronger(a->evidence, b->evidence);
    return a->count > b->count;
  });
  return out;
}

std::string rank_text(const TraceTables& t) {
  const v1::Header& h = t.header();
  if (h.rank() < 0 && h.host().empty()) return "";
  std::string out = " (";
  if (h.rank() >= 0) out += "rank " + std::to_string(h.rank());
  if (!h.host().empty()) out += std::string(h.rank() >= 0 ? " on " : "") + "host " + h.host();
  return out + ")";
}

void add_rank_json(nlohmann::ordered_json& j, const TraceTables& t) {
  const v1::Header& h = t.header();
  j["rank"] = h.rank() >= 0 ? nlohmann::ordered_json(h.rank()) : nlohmann::ordered_json(nullptr);
  j["host"] = string_or_null(h.host());
}

std::string format_text(const CheckResult& r, const ReportOptions& o) {
  const TraceTables& t = *r.tables;
  std::ostringstream out;
  const uint64_t possible = r.by_confidence[static_cast<int>(Confidence::kPossible)];
  out << "racetrack check: " << o.trace_path << rank_text(t) << "\n"
      << r.ops << " ops; " << r.hazards << " hazard(s): " << r.by_confidence[2] << " definite, "
      << r.by_confidence[1] << " likely, " << possible << " possible\n"
      << assumptions_line(r.assumptions) << mode_use_text(r.modes);
  size_t shown = 0;
  for (const HazardGroup& g : r.groups) {
    if (!g.shown) continue;
    if (++shown > o.max_groups) continue;
    const Hazard& h = g.first;
    out << "\n[" << hazard_number(h) << "] " << confidence_name(g.confidence) << " " << kind_name(h.kind)
        << " " << class_name(h.cls) << " on " << region_text(h.second, t) << " (" << space_text(h.space)
        << " " << hex(h.lo) << ", " << format_bytes(h.hi - h.lo) << ")";
    if (g.count > 1) out << ", " << g.count << " times (first shown)";
    out << "\n";
    side_line(out, "first: ", h.first, t);
    side_line(out, "second:", h.second, t);
    if (!g.explanation.empty()) out << "    why:    " << g.explanation << "\n";
    out << "    fix:    " << g.fix.text << "\n";
    if (!g.fix.pytorch.empty()) out << "            PyTorch: " << g.fix.pytorch << "\n";
    if (g.fix.available && !g.explanation.empty())
      out << "            "
          << (g.fix.verified ? "verified: re-checked with the fix applied, the hazard is gone"
                             : "NOT verified: the hazard remains when the fix is applied")
          << "\n";
    out << "    signature: " << g.signature << "\n";
  }
  if (shown > o.max_groups) out << "\n... " << shown - o.max_groups << " more group(s) (raise --max)\n";
  uint64_t suppressed = 0;
  for (const HazardGroup& g : r.groups) suppressed += g.suppressed ? g.count : 0;
  if (suppressed) out << "\n" << suppressed << " hazard(s) suppressed by signature\n";

  const std::vector<const HazardGroup*> hidden = ranked_not_shown(r);
  uint64_t hidden_hazards = 0;
  for (const HazardGroup* g : hidden) hidden_hazards += g->count;
  if (!hidden.empty()) {
    out << "\nnot shown (below --min-confidence " << confidence_name(o.min_confidence)
        << "): " << hidden_hazards << " hazard(s) in " << hidden.size()
        << " group(s), strongest first; what would settle them:\n";
    for (size_t i = 0; i < hidden.size() && i < kNotShownListed; ++i)
      out << "  [" << hazard_number(hidden[i]->first) << "] " << evidence_text(hidden[i]->evidence) << ": "
          << hidden[i]->count << " x " << hidden[i]->signature << "\n      "
          << (hidden[i]->settle.empty()
                  ? "--min-confidence " + std::string(confidence_name(hidden[i]->confidence)) + " shows it"
                  : hidden[i]->settle)
          << "\n";
    if (hidden.size() > kNotShownListed)
      out << "  ... and " << hidden.size() - kNotShownListed
          << " more group(s) (--format json ranks them all)\n";
  }
  if (r.inferred_accesses)
    out << "\nextents: " << r.inferred_accesses
        << " kernel access(es) inside driver allocations were narrowed to blocks inferred from the trace's "
           "pointers and copy ranges (\"inferred\" extent; --whole-segments turns this off)\n";
  if (shown && r.fixes_checked) {
    out << "\n"
        << (r.fixes_verified
                ? "With every suggested fix applied the trace checks clean (--emit-fixed OUT writes it)."
                : std::to_string(r.hazards_after_fixes) +
                      " hazard(s) remain with the suggested fixes applied.")
        << "\n";
  } else if (!shown && hidden.empty()) {
    out << "\nno hazard at or above " << confidence_name(o.min_confidence) << " confidence\n";
  } else if (!shown) {
    out << "\nnothing shown at or above " << confidence_name(o.min_confidence) << " confidence, but "
        << hidden_hazards << " hazard(s) in " << hidden.size()
        << " group(s) are not shown: the trace is not known to be clean (--min-confidence "
        << confidence_name(hidden.back()->confidence) << " shows them all)\n";
  }
  if (const std::string indirect = indirect_text(r.modes, t); !indirect.empty()) out << "\n" << indirect;
  if (const std::string collectives = collectives_text(r.modes); !collectives.empty()) out << "\n" << collectives;
  return out.str();
}

nlohmann::ordered_json mode_use_json(const ModeUse& use, const TraceTables& t) {
  using json = nlohmann::ordered_json;
  auto launches_of = [&](ModeSource s) { return use.launches[static_cast<int>(s)]; };
  const json launches = {{"recorded", launches_of(ModeSource::kRecorded)},
                         {"machine_code", launches_of(ModeSource::kMachineCode)},
                         {"rule", launches_of(ModeSource::kRule)},
                         {"unknown", launches_of(ModeSource::kUnknown)}};
  json indirect = json::array();
  for (uint32_t name : use.indirect_kernels) indirect.push_back(std::string(t.string(name)));
  return {{"launches", launches},
          {"indirect_kernels", indirect},
          {"indirect_launches", use.indirect_launches},
          {"unknown_collective_launches", use.unknown_collective_launches},
          {"notes", use.notes}};
}


uint64_t hazards_to_list(const CheckResult& r) {
  uint64_t total = 0;
  for (const HazardGroup& g : r.groups) total += g.shown ? g.count : 0;
  return total;
}

void write_json(std::ostream& out, const CheckResult& r, const ReportOptions& o) {
  using json = nlohmann::ordered_json;
  const TraceTables& t = *r.tables;
  auto by_confidence = [](const std::array<uint64_t, 3>& n) {
    return json{{"definite", n[2]}, {"likely", n[1]}, {"possible", n[0]}};
  };
  json j;
  j["schema_version"] = kJsonSchemaVersion;
  j["trace"] = o.trace_path;
  add_rank_json(j, t);
  j["ops"] = r.ops;
  j["min_confidence"] = std::string(confidence_name(o.min_confidence));
  j["assumptions"] = assumptions_json(r.assumptions);
  j["hazard_counts"] = {{"total", r.hazards}};
  j["hazard_counts"].update(by_confidence(r.by_confidence));
  json groups = json::array();
  for (const HazardGroup& g : r.groups) {
    json gj;
    gj["number"] = hazard_number(g.first);
    gj["signature"] = g.signature;
    gj["count"] = g.count;
    gj["by_confidence"] = by_confidence(g.by_confidence);
    gj["confidence"] = std::string(confidence_name(g.confidence));
    gj["shown"] = g.shown;
    gj["suppressed"] = g.suppressed;
    gj["hazard"] = hazard_json(g.first, t);
    gj["explanation"] = string_or_null(g.explanation);
    gj["fix"] = {{"available", g.fix.available},
                 {"text", g.fix.text},
                 {"pytorch", string_or_null(g.fix.pytorch)},
                 {"verified", g.fix.verified}};
    gj["settle"] = string_or_null(g.settle);
    gj["evidence"] = {{"anchored", g.evidence.anchored},
                      {"extent", std::string(precision_name(g.evidence.extent))}};
    groups.push_back(std::move(gj));
  }
  j["groups"] = std::move(groups);
  const std::vector<const HazardGroup*> hidden = ranked_not_shown(r);
  json ranked = json::array();
  uint64_t hidden_hazards = 0;
  for (const HazardGroup* g : hidden) {
    ranked.push_back(hazard_number(g->first));
    hidden_hazards += g->count;
  }
  j["not_shown"] = {{"hazards", hidden_hazards}, {"groups", hidden.size()}, {"ranked", std::move(ranked)}};
  j["extents"] = {{"inferred_accesses", r.inferred_accesses}};
  j["fixes_checked"] = r.fixes_checked;
  j["fixes_verified"] = r.fixes_verified;
  j["hazards_after_fixes"] = r.hazards_after_fixes;
  j["access_modes"] = mode_use_json(r.modes, t);
  if (!o.list_all) {
    out << dump_json(j);
    return;
  }
  const uint64_t total = hazards_to_list(r);
  const size_t listed = std::min<size_t>(r.shown.size(), o.max_hazards);
  j["hazards_listed"] = {{"total", total}, {"listed", listed}, {"truncated", listed < total}};
  // The list goes last, one hazard at a time: a document of a million
  // hazards is never held in memory.
  std::string head = dump_json(j);
  head.resize(head.rfind('}'));
  while (!head.empty() && std::isspace(static_cast<unsigned char>(head.back()))) head.pop_back();
  out << head << ",\n  \"hazards\": [";
  for (size_t i = 0; i < listed; ++i) {
    std::string item = dump_json(hazard_json(r.shown[i], t));
    item.pop_back();  // the newline
    out << (i ? "," : "") << "\n    ";
    for (char c : item) {
      out << c;
      if (c == '\n') out << "    ";
    }
  }
  out << (listed ? "\n  ]\n}\n" : "]\n}\n");
}

}  // namespace racetrack::race
