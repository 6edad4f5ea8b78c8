#include "racetrack/race/hazard_json.h"

#include <cctype>

namespace racetrack::race {
namespace {

constexpr size_t kDisplayChars = 70;

nlohmann::ordered_json label(uint32_t string_id, const TraceTables& t) {
  return string_id ? string_or_null(t.string(string_id)) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json side_json(const HazardSide& s, const TraceTables& t) {
  using json = nlohmann::ordered_json;
  json j;
  j["seq"] = s.seq;
  j["op"] = std::string(op_kind_name(s.op_kind));
  j["name"] = s.op_kind == OpKind::kMemcpy ? json(nullptr) : label(s.name, t);
  j["display_name"] = display_name(s, t);
  j["direction"] = s.op_kind == OpKind::kMemcpy ? json(json_id(direction_name(s.direction))) : json(nullptr);
  j["stream"] = s.stream ? json(t.stream_label(s.stream)) : json(nullptr);
  j["stream_id"] = s.stream ? json(s.stream) : json(nullptr);
  const v1::Stream* stream = s.stream ? t.stream(s.stream) : nullptr;
  j["role"] = !s.stream ? "host" : stream ? std::string(role_name(stream->role())) : "unknown";
  j["thread"] = s.thread;
  j["nvtx"] = label(s.nvtx, t);
  j["stack"] = label(s.stack, t);
  j["graph_node"] = s.access.node ? json(s.access.node - 1) : json(nullptr);
  j["access"] = {{"address", hex(s.access.lo)},
                 {"bytes", s.access.hi - s.access.lo},
                 {"reads", s.access.reads},
                 {"writes", s.access.writes},
                 {"mode_known", s.access.mode_known},
                 {"mode_source", mode_source_name(s.access.mode_source)},
                 {"indirect_access", s.access.indirect},
                 {"precision", std::string(precision_name(s.access.precision))},
                 {"region", label(s.region_label, t)}};
  return j;
}

}  // namespace

std::string dump_json(const nlohmann::ordered_json& document) {
  // Names come from the trace: bytes that are not UTF-8 become U+FFFD
  // rather than an exception.
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string json_id(std::string_view name) {
  std::string out(name);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

nlohmann::ordered_json string_or_null(std::string_view text) {
  return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(std::string(text));
}

std::string display_name(const HazardSide& side, const TraceTables& tables) {
  std::string title = side_title(side, tables);
  if (title.size() <= kDisplayChars) return title;
  size_t cut = kDisplayChars - 3;
  // Not inside a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(title[cut]) & 0xC0) == 0x80) --cut;
  return title.substr(0, cut) + "...";
}

nlohmann::ordered_json hazard_json(const Hazard& h, const TraceTables& t) {
  using json = nlohmann::ordered_json;
  json j;
  j["number"] = hazard_number(h);
  j["kind"] = std::string(kind_id(h.kind));
  j["class"] = std::string(class_name(h.cls));
  j["confidence"] = std::string(confidence_name(h.confidence));
  j["first"] = side_json(h.first, t);
  j["second"] = side_json(h.second, t);
  j["overlap"] = {{"space", h.space == kHostSpace ? "host" : "device"},
                  {"device", h.space == kHostSpace ? json(nullptr) : json(h.space - 1)},
                  {"address", hex(h.lo)},
                  {"bytes", h.hi - h.lo},
                  {"region", label(h.second.region_label, t)}};
  return j;
}

nlohmann::ordered_json assumptions_json(const hb::Assumptions& assumptions) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const std::string& setting : hb::describe(assumptions)) {
    const size_t eq = setting.find('=');
    j[setting.substr(0, eq)] = setting.substr(eq + 1);
  }
  return j;
}

std::string assumptions_line(const hb::Assumptions& assumptions) {
  std::string out = "assumptions:";
  for (const std::string& setting : hb::describe(assumptions)) out += " " + setting;
  return out + " (docs/ordering-rules.md; change with --assume)\n";
}

}  // namespace racetrack::race
