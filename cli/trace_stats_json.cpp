// `racetrack info --format json` (docs/schemas/info.schema.json).
#include "racetrack/race/hazard_json.h"
#include "trace_stats.h"

namespace racetrack::cli {
namespace {

using json = nlohmann::ordered_json;

json header_json(const v1::Header& h) {
  json devices = json::array();
  for (const auto& d : h.devices())
    devices.push_back({{"id", d.id()},
                       {"name", d.name()},
                       {"cc_major", d.cc_major()},
                       {"cc_minor", d.cc_minor()},
                       {"memory_bytes", d.memory_bytes()},
                       {"h2d_copy_engines", d.h2d_copy_engines()},
                       {"d2h_copy_engines", d.d2h_copy_engines()}});
  return {{"format_version", h.format_version()},
          {"producer", h.producer()},
          {"command_line", json(std::vector<std::string>(h.command_line().begin(), h.command_line().end()))},
          {"host", h.host()},
          {"pid", h.pid()},
          {"rank", h.rank() >= 0 ? json(h.rank()) : json(nullptr)},
          {"driver_version", h.driver_version()},
          {"runtime_version", h.runtime_version()},
          {"devices", std::move(devices)}};
}

}  // namespace

std::string format_stats_json(const TraceStats& s, const std::string& path, const Status& status) {
  const TraceTables& t = s.tables;
  json j;
  j["schema_version"] = race::kJsonSchemaVersion;
  j["trace"] = path;
  j["complete"] = status.ok();
  j["error"] = status.ok() ? json(nullptr) : json(status.error().describe());
  j["header"] = header_json(t.header());
  j["ops"] = s.ops;
  j["chunks"] = s.chunks;
  j["operator_values"] = s.operator_values;  // racetrack diff's values records
  j["time"] = nullptr;
  if (s.any_time)
    j["time"] = {{"first_ns", s.first_time},
                 {"last_ns", s.last_time},
                 {"span_ns", s.last_time - s.first_time},
                 {"device_times", s.device_times}};
  json kinds = json::object();
  for (int k = 0; k < kOpKindCount; ++k)
    if (s.per_kind[k]) kinds[std::string(op_kind_name(static_cast<OpKind>(k)))] = s.per_kind[k];
  j["ops_per_kind"] = std::move(kinds);
  json streams = json::array();
  for (const auto& st : t.streams()) {
    const auto ops = s.per_stream.find(st.id());
    streams.push_back({{"id", st.id()},
                       {"label", t.stream_label(st.id())},
                       {"device", st.device()},
                       {"flags", std::string(flags_name(st.flags()))},
                       {"priority", st.priority()},
                       {"role", std::string(role_name(st.role()))},
                       {"ops", ops == s.per_stream.end() ? 0 : ops->second}});
  }
  j["streams"] = std::move(streams);
  const auto host_only = s.per_stream.find(0);
  j["host_only_ops"] = host_only == s.per_stream.end() ? 0 : host_only->second;
  j["host_threads"] = t.threads().size();
  j["events"] = t.events().size();
  json copied = json::object();
  for (const auto& [direction, bytes] : s.bytes_per_direction) copied[race::json_id(direction)] = bytes;
  j["bytes_copied"] = std::move(copied);
  json by_space = json::object();
  for (const auto& [space, total] : s.regions_by_space)
    by_space[space] = {{"count", total.count}, {"bytes", total.bytes}};
  j["regions"] = {{"count", s.regions}, {"by_space", std::move(by_space)}};
  j["nvtx_paths"] = s.nvtx_paths.size();
  return race::dump_json(j);
}

}  // namespace racetrack::cli
