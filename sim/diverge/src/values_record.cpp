#include "racetrack/diverge/values_record.h"

#include <fstream>
#include <nlohmann/json.hpp>

namespace racetrack::diverge {
namespace {

using nlohmann::json;

// A field of `j` of the wanted type, or an error naming it.
template <typename T>
std::string field(const json& j, const char* name, T& out, bool required = true) {
  const auto it = j.find(name);
  if (it == j.end()) return required ? std::string("missing field \"") + name + "\"" : std::string();
  try {
    out = it->get<T>();
  } catch (const json::exception&) {
    return std::string("field \"") + name + "\" has the wrong type";
  }
  return {};
}

std::string read_digests(const json& j, const char* name, std::vector<Digest>& out) {
  const auto it = j.find(name);
  if (it == j.end()) return std::string("missing field \"") + name + "\"";
  if (!it->is_array()) return std::string("field \"") + name + "\" is not a list";
  for (const json& d : *it) {
    if (!d.is_object()) return std::string("a digest in \"") + name + "\" is not an object";
    Digest digest;
    for (std::string why :
         {field(d, "hash", digest.hash), field(d, "dtype", digest.dtype), field(d, "numel", digest.numel),
          field(d, "sum", digest.sum), field(d, "absmax", digest.absmax), field(d, "nan", digest.nan),
          field(d, "inf", digest.inf)})
      if (!why.empty()) return std::string("a digest in \"") + name + "\": " + why;
    if (digest.hash.empty() || digest.hash.size() > 16 ||
        digest.hash.find_first_not_of("0123456789abcdef") != std::string::npos)
      return std::string("a digest in \"") + name + "\": hash \"" + digest.hash.substr(0, 40) +
             "\" is not 1 to 16 lower-case hex digits";
    digest.hash.insert(0, 16 - digest.hash.size(), '0');  // one spelling per value, as traces give it
    out.push_back(std::move(digest));
  }
  return {};
}

std::string read_record(const json& j, ValueRecord& r) {
  if (!j.is_object()) return "not a JSON object";
  for (std::string why :
       {field(j, "seq", r.seq), field(j, "phase", r.phase), field(j, "module", r.module),
        field(j, "op", r.op), field(j, "n", r.n), field(j, "param", r.param, false),
        field(j, "stack", r.stack, false), field(j, "t", r.time_ns, false),
        field(j, "thread", r.thread, false), read_digests(j, "in", r.in), read_digests(j, "out", r.out)})
    if (!why.empty()) return why;
  if (r.phase != "forward" && r.phase != "backward" && r.phase != "recompute" && r.phase != "optimizer")
    return "unknown phase \"" + r.phase + "\"";
  return {};
}

}  // namespace

Result<ValuesRecord> read_values(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open the values record", {}, path};
  ValuesRecord out;
  std::string text;
  size_t line = 0;
  auto bad = [&](const std::string& why) {
    return Error{"line " + std::to_string(line) + ": " + why, {}, path};
  };
  while (std::getline(in, text)) {
    ++line;
    if (text.empty()) continue;
    const json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) return bad("not JSON");
    if (line == 1) {
      int format = 0;
      if (!field(j, "racetrack_values", format).empty())
        return bad(
            "not a racetrack values record (no \"racetrack_values\" header; "
            "racetrack_torch.record_values() writes one)");
      if (format != 1)
        return bad("values record format " + std::to_string(format) + ", this racetrack reads 1");
      (void)field(j, "torch", out.torch_version, false);
      continue;
    }
    ValueRecord r;
    if (const std::string why = read_record(j, r); !why.empty()) return bad(why);
    r.line = line;
    out.records.push_back(std::move(r));
  }
  if (line == 0) return Error{"empty file: not a values record", {}, path};
  return out;
}

}  // namespace racetrack::diverge
