#include "racetrack/race/rank_merge.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <sstream>

namespace racetrack::race {
namespace {

using json = nlohmann::ordered_json;

constexpr int kSchemaVersion = 1;

int confidence_rank(const json& confidence) {
  const std::string c = confidence.is_string() ? confidence.get<std::string>() : "";
  return c == "definite" ? 2 : c == "likely" ? 1 : 0;
}

int32_t rank_of(const RankReport& r) {
  if (r.error || !r.report.contains("rank") || !r.report["rank"].is_number_integer()) return -1;
  return r.report["rank"].get<int32_t>();
}

// Ranked traces first, by rank; then the rest, by path.
std::vector<size_t> trace_order(const std::vector<RankReport>& ranks) {
  std::vector<size_t> order(ranks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const int32_t ra = rank_of(ranks[a]), rb = rank_of(ranks[b]);
    if ((ra < 0) != (rb < 0)) return ra >= 0;
    if (ra != rb) return ra < rb;
    return ranks[a].path < ranks[b].path;
  });
  return order;
}

json trace_entry(const RankReport& r) {
  const int32_t rank = rank_of(r);
  json t;
  t["path"] = r.path;
  t["rank"] = rank >= 0 ? json(rank) : json(nullptr);
  t["host"] = !r.error && r.report.contains("host") ? r.report["host"] : json(nullptr);
  t["checked"] = !r.error;
  t["error"] = r.error ? json(*r.error) : json(nullptr);
  uint64_t shown = 0;
  if (!r.error)
    for (const json& g : r.report["groups"]) shown += g.value("shown", false) ? 1 : 0;
  t["ops"] = r.error ? json(nullptr) : r.report["ops"];
  t["hazards"] = r.error ? json(nullptr) : r.report["hazard_counts"]["total"];
  t["shown_groups"] = r.error ? json(nullptr) : json(shown);
  return t;
}

// Where a group occurred on one trace: enough to find it there.
json occurrence(size_t trace, const json& entry, const json& group) {
  const json& h = group["hazard"];
  return {{"trace", trace},
          {"rank", entry["rank"]},
          {"host", entry["host"]},
          {"count", group["count"]},
          {"confidence", group["confidence"]},
          {"shown", group["shown"]},
          {"first_seq", h["first"]["seq"]},
          {"second_seq", h["second"]["seq"]},
          {"overlap", h["overlap"]}};
}

}  // namespace

json merge_rank_reports(const std::vector<RankReport>& ranks) {
  json traces = json::array();
  uint64_t checked = 0, ops = 0, hazards = 0;
  // Groups by signature, in the order they were first seen.
  std::map<std::string, size_t> index;
  std::vector<json> groups;
  for (size_t i : trace_order(ranks)) {
    const RankReport& r = ranks[i];
    json entry = trace_entry(r);
    const size_t at = traces.size();
    if (!r.error) {
      ++checked;
      ops += r.report["ops"].get<uint64_t>();
      hazards += r.report["hazard_counts"]["total"].get<uint64_t>();
      for (const json& g : r.report["groups"]) {
        const std::string signature = g["signature"].get<std::string>();
        auto [it, added] = index.try_emplace(signature, groups.size());
        if (added) {
          json m;
          m["signature"] = signature;
          m["confidence"] = g["confidence"];
          m["shown"] = false;
          m["suppressed"] = g["suppressed"];
          m["count"] = 0;
          m["traces"] = 0;
          m["ranks"] = json::array();
          m["occurrences"] = json::array();
          m["hazard"] = g["hazard"];
          m["explanation"] = g["explanation"];
          m["fix"] = g["fix"];
          m["settle"] = g["settle"];
          m["from_trace"] = at;
          groups.push_back(std::move(m));
        }
        json& m = groups[it->second];
        m["shown"] = m["shown"].get<bool>() || g["shown"].get<bool>();
        m["count"] = m["count"].get<uint64_t>() + g["count"].get<uint64_t>();
        m["traces"] = m["traces"].get<uint64_t>() + 1;
        if (entry["rank"].is_number()) m["ranks"].push_back(entry["rank"]);
        m["occurrences"].push_back(occurrence(at, entry, g));
        // The strongest instance speaks for the group (its first on ties).
        if (confidence_rank(g["confidence"]) > confidence_rank(m["confidence"])) {
          for (const char* key : {"confidence", "hazard", "explanation", "fix", "settle"}) m[key] = g[key];
          m["from_trace"] = at;
        }
      }
    }
    traces.push_back(std::move(entry));
  }
  std::stable_sort(groups.begin(), groups.end(), [](const json& a, const json& b) {
    if (a["shown"] != b["shown"]) return a["shown"].get<bool>();
    const int ca = confidence_rank(a["confidence"]), cb = confidence_rank(b["confidence"]);
    if (ca != cb) return ca > cb;
    return a["traces"].get<uint64_t>() > b["traces"].get<uint64_t>();
  });
  uint64_t shown_groups = 0;
  json merged_groups = json::array();
  for (json& g : groups) {
    shown_groups += g["shown"].get<bool>() ? 1 : 0;
    g["number"] = merged_groups.size() + 1;
    merged_groups.push_back(std::move(g));
  }
  json out;
  out["schema_version"] = kSchemaVersion;
  out["summary"] = {{"traces", ranks.size()},
                    {"checked", checked},
                    {"failed", ranks.size() - checked},
                    {"ops", ops},
                    {"hazards", hazards},
                    {"shown_groups", shown_groups}};
  out["traces"] = std::move(traces);
  out["groups"] = std::move(merged_groups);
  return out;
}

namespace {

std::string trace_name(const json& t) {
  std::string out;
  if (t["rank"].is_number()) out += "rank " + std::to_string(t["rank"].get<int>());
  if (t["host"].is_string()) out += (out.empty() ? "host " : " on ") + t["host"].get<std::string>();
  return out.empty() ? t["path"].get<std::string>() : out + " (" + t["path"].get<std::string>() + ")";
}

std::string side_text(const json& side) {
  std::string out =
      "#" + std::to_string(side["seq"].get<uint64_t>()) + " " + side["display_name"].get<std::string>();
  if (side["stream"].is_string()) out += " on " + side["stream"].get<std::string>();
  return out;
}

std::string rank_list(const json& g) {
  std::string out;
  for (const json& r : g["ranks"]) out += (out.empty() ? "" : ", ") + std::to_string(r.get<int>());
  return out;
}

}  // namespace

std::string format_ranks_text(const json& m, size_t max_groups) {
  std::ostringstream out;
  const json& s = m["summary"];
  out << "racetrack check: " << s["traces"] << " traces, " << s["checked"] << " checked";
  if (s["failed"].get<uint64_t>()) out << ", " << s["failed"] << " could not be checked";
  out << "; " << s["ops"] << " ops, " << s["hazards"] << " hazard(s)\n";
  for (const json& t : m["traces"]) {
    out << "  " << trace_name(t) << ": ";
    if (t["checked"].get<bool>())
      out << t["ops"] << " ops, " << t["hazards"] << " hazard(s), " << t["shown_groups"]
          << " group(s) shown\n";
    else
      out << "NOT CHECKED: " << t["error"].get<std::string>() << "\n";
  }
  const json& traces = m["traces"];
  size_t shown = 0;
  for (const json& g : m["groups"]) {
    if (!g["shown"].get<bool>()) continue;
    if (++shown > max_groups) continue;
    const json& h = g["hazard"];
    std::string kind = h["kind"].get<std::string>();
    for (char& c : kind) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out << "\n[" << g["number"] << "] " << g["confidence"].get<std::string>() << " " << kind << " "
        << h["class"].get<std::string>() << ", on " << g["traces"] << " of " << s["checked"] << " trace(s)";
    if (!g["ranks"].empty()) out << " (rank " << rank_list(g) << ")";
    out << ", " << g["count"] << " time(s)\n";
    out << "    first:  " << side_text(h["first"]) << "\n    second: " << side_text(h["second"]) << "\n";
    for (const json& o : g["occurrences"])
      out << "    on " << trace_name(traces[o["trace"].get<size_t>()]) << ": first #" << o["first_seq"]
          << " -> #" << o["second_seq"] << ", " << o["count"] << " time(s), "
          << o["confidence"].get<std::string>() << "\n";
    if (g["explanation"].is_string()) out << "    why:    " << g["explanation"].get<std::string>() << "\n";
    out << "    fix:    " << g["fix"]["text"].get<std::string>() << "\n";
    if (g["fix"]["pytorch"].is_string())
      out << "            PyTorch: " << g["fix"]["pytorch"].get<std::string>() << "\n";
    out << "            (as reported on " << trace_name(traces[g["from_trace"].get<size_t>()]) << ")\n";
    out << "    signature: " << g["signature"].get<std::string>() << "\n";
  }
  if (shown > max_groups) out << "\n... " << shown - max_groups << " more group(s) (raise --max)\n";
  uint64_t hidden = 0;
  for (const json& g : m["groups"]) hidden += g["shown"].get<bool>() || g["suppressed"].get<bool>() ? 0 : 1;
  if (shown && hidden)
    out << "\n" << hidden << " more group(s) below the confidence shown (--format json lists them)\n";
  else if (hidden)
    out << "\nnothing shown on any trace, but " << hidden
        << " group(s) are not shown: the run is not known to be clean (--format json lists them)\n";
  else if (!shown)
    out << "\nno hazard shown on any trace\n";
  if (s["failed"].get<uint64_t>())
    out << "\n"
        << s["failed"] << " trace(s) could not be checked: their ranks are not covered by this report\n";
  return out.str();
}

}  // namespace racetrack::race
