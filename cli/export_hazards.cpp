#include "export_hazards.h"

#include <set>
#include <string>

namespace racetrack::cli {
namespace {

std::string region_text(const race::HazardSide& s, const TraceTables& t) {
  return s.region_label ? "\"" + std::string(t.string(s.region_label)) + "\"" : std::string("unnamed memory");
}

// "#31467 memcpy D2H on offload_d2h, reads "act""
std::string side_text(const race::HazardSide& s, const TraceTables& t) {
  std::string text = "#" + std::to_string(s.seq) + " " + std::string(op_kind_name(s.op_kind));
  if (s.op_kind == OpKind::kMemcpy)
    text += " " + std::string(direction_name(s.direction));
  else if (s.name)
    text += " " + std::string(t.string(s.name));
  if (s.stream) {
    text += " on " + t.stream_label(s.stream);
  } else {
    const v1::HostThread* th = t.thread(s.thread);
    text += " on host thread " +
            (th && th->name() ? std::string(t.string(th->name())) : std::to_string(s.thread));
  }
  const race::ResolvedAccess& a = s.access;
  text += ", ";
  text += !a.mode_known         ? "may write (mode unknown)"
          : a.reads && a.writes ? "reads+writes"
          : a.writes            ? "writes"
                                : "reads";
  return text + " " + region_text(s, t);
}

ExportHazard describe(const race::Hazard& h, const race::HazardGroup& g, uint64_t number, bool group_first,
                      const TraceTables& t) {
  ExportHazard e;
  e.number = number;
  e.first_seq = h.first.seq;
  e.second_seq = h.second.seq;
  e.title = "[" + std::to_string(number) + "] " + std::string(race::confidence_name(h.confidence)) + " " +
            std::string(race::kind_name(h.kind)) + " " + std::string(race::class_name(h.cls)) + " on " +
            region_text(h.second, t);
  auto arg = [&e](std::string key, std::string text) {
    if (!text.empty()) e.args.emplace_back(std::move(key), std::move(text));
  };
  arg("kind", std::string(race::kind_name(h.kind)));
  arg("class", std::string(race::class_name(h.cls)));
  arg("confidence", std::string(race::confidence_name(h.confidence)));
  arg("first", side_text(h.first, t));
  arg("second", side_text(h.second, t));
  arg("overlap",
      (h.space == race::kHostSpace ? std::string("host") : "device " + std::to_string(h.space - 1)) +
          " memory " + hex(h.lo) + ", " + format_bytes(h.hi - h.lo));
  arg("signature", g.signature);
  arg("occurrences", std::to_string(g.count));
  if (group_first) {
    arg("explanation", g.explanation);
    arg("fix", g.fix.text);
    arg("fix_pytorch", g.fix.pytorch);
    if (g.fix.available && !g.explanation.empty())
      arg("fix_verified", g.fix.verified ? "yes: re-checked with the fix applied, the hazard is gone"
                                         : "no: the hazard remains when the fix is applied");
    arg("settle", g.settle);
  } else {
    arg("fix", "as for the group's first shown occurrence, #" + std::to_string(g.first.first.seq) + " -> #" +
                   std::to_string(g.first.second.seq) + ", applied to these two ops");
  }
  return e;
}

}  // namespace

std::vector<ExportHazard> export_hazards(const race::CheckResult& result, bool every_occurrence, size_t max) {
  const TraceTables& t = *result.tables;
  std::vector<ExportHazard> out;
  std::vector<uint64_t> numbers(result.groups.size(), 0);  // by group index; 0: not shown
  std::set<race::HazardKey> firsts;
  for (size_t i = 0; i < result.groups.size(); ++i) {
    const race::HazardGroup& g = result.groups[i];
    if (!g.shown) continue;
    numbers[i] = race::hazard_number(g.first);  // as check, sim, replay and the viewer number it
    if (out.size() < max) out.push_back(describe(g.first, g, numbers[i], true, t));
    firsts.insert(g.first.key());
  }
  if (!every_occurrence) return out;
  for (const race::Hazard& h : result.shown) {
    if (out.size() >= max) break;
    if (h.group >= numbers.size() || !numbers[h.group] || firsts.count(h.key())) continue;
    out.push_back(describe(h, result.groups[h.group], numbers[h.group], false, t));
  }
  return out;
}

}  // namespace racetrack::cli
