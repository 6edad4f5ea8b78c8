#include "racetrack/race/report.h"

#include <nlohmann/json.hpp>

#include <sstream>

namespace racetrack::race {
namespace {

std::string space_text(SpaceKey space) {
  return space == kHostSpace ? "host memory" : "device " + std::to_string(space - 1) + " memory";
}

std::string side_title(const HazardSide& s, const TraceTables& t) {
  if (s.op_kind == OpKind::kMemcpy) return "memcpy " + std::string(direction_name(s.direction));
  if (s.name) return std::string(op_kind_name(s.op_kind)) + " " + std::string(t.string(s.name));
  return std::string(op_kind_name(s.op_kind));
}

std::string where(const HazardSide& s, const TraceTables& t) {
  if (!s.stream) {
    const v1::HostThread* th = t.thread(s.thread);
    return "host thread " + (th && th->name() ? std::string(t.string(th->name())) : std::to_string(s.thread));
  }
  return t.stream_label(s.stream);
}

std::string mode_text(const ResolvedAccess& a) {
  std::string m = a.reads && a.writes ? "reads+writes" : a.writes ? "writes" : "reads";
  if (!a.mode_known) m = "may write (mode unknown)";
  if (a.precision != v1::PRECISION_EXACT) m += ", " + std::string(precision_name(a.precision)) + " extent";
  return m;
}

std::string region_text(const HazardSide& s, const TraceTables& t) {
  return s.region_label ? "\"" + std::string(t.string(s.region_label)) + "\"" : std::string("unnamed memory");
}

void side_line(std::ostringstream& out, const char* label, const HazardSide& s, const TraceTables& t) {
  out << "    " << label << " #" << s.seq << " " << side_title(s, t) << " on " << where(s, t) << ", "
      << mode_text(s.access) << " " << region_text(s, t);
  if (s.nvtx) out << "\n            nvtx " << t.string(s.nvtx);
  if (s.stack) out << "\n            stack " << t.string(s.stack);
  out << "\n";
}

nlohmann::ordered_json side_json(const HazardSide& s, const TraceTables& t) {
  nlohmann::ordered_json j;
  j["seq"] = s.seq;
  j["op"] = std::string(op_kind_name(s.op_kind));
  j["name"] = side_title(s, t);
  if (s.stream)
    j["stream"] = t.stream_label(s.stream);
  else
    j["stream"] = nullptr;
  j["role"] = s.stream ? std::string(role_name(t.stream(s.stream)->role())) : "host";
  j["thread"] = s.thread;
  j["nvtx"] = std::string(t.string(s.nvtx));
  if (s.stack) j["stack"] = std::string(t.string(s.stack));
  j["access"] = {{"address", hex(s.access.lo)},
                 {"bytes", s.access.hi - s.access.lo},
                 {"reads", s.access.reads},
                 {"writes", s.access.writes},
                 {"mode_known", s.access.mode_known},
                 {"precision", std::string(precision_name(s.access.precision))},
                 {"region", s.region_label ? std::string(t.string(s.region_label)) : ""}};
  return j;
}

nlohmann::ordered_json hazard_json(const Hazard& h, const TraceTables& t) {
  nlohmann::ordered_json j;
  j["kind"] = std::string(kind_name(h.kind));
  j["class"] = std::string(class_name(h.cls));
  j["confidence"] = std::string(confidence_name(h.confidence));
  j["first"] = side_json(h.first, t);
  j["second"] = side_json(h.second, t);
  j["overlap"] = {{"space", space_text(h.space)},
                  {"address", hex(h.lo)},
                  {"bytes", h.hi - h.lo},
                  {"region", h.second.region_label ? std::string(t.string(h.second.region_label)) : ""}};
  return j;
}

}  // namespace

std::string format_text(const CheckResult& r, const ReportOptions& o) {
  const TraceTables& t = *r.tables;
  std::ostringstream out;
  const uint64_t possible = r.by_confidence[static_cast<int>(Confidence::kPossible)];
  out << "racetrack check: " << o.trace_path << "\n"
      << r.ops << " ops; " << r.hazards << " hazard(s): " << r.by_confidence[2] << " definite, " << r.by_confidence[1]
      << " likely, " << possible << " possible\n";
  size_t shown = 0, index = 0;
  for (const HazardGroup& g : r.groups) {
    if (!g.shown) continue;
    if (++shown > o.max_groups) continue;
    const Hazard& h = g.first;
    out << "\n[" << ++index << "] " << confidence_name(g.confidence) << " " << kind_name(h.kind) << " "
        << class_name(h.cls) << " on " << region_text(h.second, t) << " (" << space_text(h.space)
        << " " << hex(h.lo) << ", " << format_bytes(h.hi - h.lo) << ")";
    if (g.count > 1) out << ", " << g.count << " times (first shown)";
    out << "\n";
    side_line(out, "first: ", h.first, t);
    side_line(out, "second:", h.second, t);
    if (!g.explanation.empty()) out << "    why:    " << g.explanation << "\n";
    out << "    fix:    " << g.fix.text << "\n";
    if (!g.fix.pytorch.empty()) out << "            PyTorch: " << g.fix.pytorch << "\n";
    if (g.fix.available && !g.explanation.empty())
      out << "            " << (g.fix.verified ? "verified: re-checked with the fix applied, the hazard is gone"
                                               : "NOT verified: the hazard remains when the fix is applied")
          << "\n";
    out << "    signature: " << g.signature << "\n";
  }
  if (shown > o.max_groups) out << "\n... " << shown - o.max_groups << " more group(s) (raise --max)\n";
  uint64_t suppressed = 0;
  for (const HazardGroup& g : r.groups) suppressed += g.suppressed ? g.count : 0;
  if (suppressed) out << "\n" << suppressed << " hazard(s) suppressed by signature\n";

  std::vector<const HazardGroup*> hidden;
  for (const HazardGroup& g : r.groups)
    if (!g.shown && !g.suppressed) hidden.push_back(&g);
  if (!hidden.empty()) {
    out << "\nnot shown (below --min-confidence " << confidence_name(o.min_confidence) << "): ";
    uint64_t n = 0;
    for (const HazardGroup* g : hidden) n += g->count;
    out << n << " hazard(s) in " << hidden.size() << " group(s); what would settle them:\n";
    for (size_t i = 0; i < hidden.size() && i < 10; ++i)
      out << "  " << hidden[i]->count << " x " << hidden[i]->signature << "\n      " << hidden[i]->settle << "\n";
    if (hidden.size() > 10) out << "  ... and " << hidden.size() - 10 << " more group(s)\n";
  }
  if (shown && r.fixes_checked) {
    out << "\n"
        << (r.fixes_verified ? "With every suggested fix applied the trace checks clean (--emit-fixed OUT writes it)."
                             : std::to_string(r.hazards_after_fixes) +
                                   " hazard(s) remain with the suggested fixes applied.")
        << "\n";
  } else if (!shown) {
    out << "\nno hazard at or above " << confidence_name(o.min_confidence) << " confidence\n";
  }
  return out.str();
}

std::string format_json(const CheckResult& r, const ReportOptions& o) {
  const TraceTables& t = *r.tables;
  nlohmann::ordered_json j;
  j["trace"] = o.trace_path;
  j["ops"] = r.ops;
  j["min_confidence"] = std::string(confidence_name(o.min_confidence));
  j["hazard_counts"] = {{"total", r.hazards},
                        {"definite", r.by_confidence[2]},
                        {"likely", r.by_confidence[1]},
                        {"possible", r.by_confidence[0]}};
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const HazardGroup& g : r.groups) {
    nlohmann::ordered_json gj;
    gj["signature"] = g.signature;
    gj["count"] = g.count;
    gj["confidence"] = std::string(confidence_name(g.confidence));
    gj["shown"] = g.shown;
    gj["suppressed"] = g.suppressed;
    gj["first"] = hazard_json(g.first, t);
    if (!g.explanation.empty()) gj["explanation"] = g.explanation;
    gj["fix"] = {{"available", g.fix.available},
                 {"text", g.fix.text},
                 {"pytorch", g.fix.pytorch},
                 {"verified", g.fix.verified}};
    if (!g.settle.empty()) gj["settle"] = g.settle;
    groups.push_back(std::move(gj));
  }
  j["groups"] = std::move(groups);
  if (o.list_all) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const Hazard& h : r.shown) all.push_back(hazard_json(h, t));
    j["hazards"] = std::move(all);
  }
  j["fixes_verified"] = r.fixes_verified;
  return j.dump(2) + "\n";
}

}  // namespace racetrack::race
