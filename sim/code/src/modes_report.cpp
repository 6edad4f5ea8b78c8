#include "racetrack/code/modes_report.h"

#include <cctype>

namespace racetrack::code {
namespace {

std::string regex_escape(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string list(const std::vector<uint32_t>& words) {
  std::string out;
  for (uint32_t w : words) out += (out.empty() ? "" : ",") + std::to_string(w);
  return out;
}

std::vector<uint32_t> words_where(const KernelModes& k, bool (*pred)(WordMode)) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < k.words.size(); ++i)
    if (pred(k.words[i])) out.push_back(static_cast<uint32_t>(i + 1));
  return out;
}

bool reads(WordMode m) {
  return m == WordMode::kRead || m == WordMode::kReadWrite || m == WordMode::kEscapes;
}
bool writes(WordMode m) {
  return m == WordMode::kWrite || m == WordMode::kReadWrite || m == WordMode::kEscapes;
}
bool escapes(WordMode m) {
  return m == WordMode::kEscapes;
}

}  // namespace

std::string kernel_mode_rule(const KernelModes& k) {
  std::string line = "^" + regex_escape(k.name) + "$";
  if (auto r = words_where(k, reads); !r.empty()) line += " reads=" + list(r);
  if (auto w = words_where(k, writes); !w.empty()) line += " writes=" + list(w);
  return line;
}

std::string kernel_mode_comment(const KernelModes& k) {
  std::vector<std::string> parts;
  if (auto e = words_where(k, escapes); !e.empty()) parts.push_back("escapes=" + list(e));
  if (k.grid_dependency_wait)
    parts.push_back(k.accesses_before_wait ? "pdl-wait (some accesses before it)"
                                           : "pdl-wait (before every access)");
  if (k.indirect_access) parts.push_back("indirect (memory through pointers no word gives)");
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "  # " : "; ") + p;
  return out;
}

nlohmann::json kernel_json(const KernelModes& k) {
  nlohmann::json words = nlohmann::json::array();
  for (WordMode m : k.words) words.push_back(mode_name(m));
  return {{"name", k.name},
          {"words", words},
          {"reads", words_where(k, reads)},
          {"writes", words_where(k, writes)},
          {"escapes", words_where(k, escapes)},
          {"grid_dependency_wait", k.grid_dependency_wait},
          {"accesses_before_wait", k.accesses_before_wait},
          {"indirect_access", k.indirect_access},
          {"rule", kernel_mode_rule(k)},
          {"notes", k.notes}};
}

Result<KernelModes> kernel_from_json(const nlohmann::json& j) {
  KernelModes k;
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string() || !j.contains("words") ||
      !j["words"].is_array())
    return make_error("a kernel entry without a name or words");
  k.name = j["name"].get<std::string>();
  for (const auto& w : j["words"]) {
    WordMode m;
    if (!w.is_string() || !parse_mode_name(w.get<std::string>(), m))
      return make_error("kernel " + k.name + ": unknown word mode " + w.dump());
    k.words.push_back(m);
  }
  auto flag = [&j](const char* key) { return j.contains(key) && j[key].is_boolean() && j[key].get<bool>(); };
  k.grid_dependency_wait = flag("grid_dependency_wait");
  k.accesses_before_wait = flag("accesses_before_wait");
  k.indirect_access = flag("indirect_access");
  if (j.contains("notes") && j["notes"].is_array())
    for (const auto& n : j["notes"])
      if (n.is_string()) k.notes.push_back(n.get<std::string>());
  return k;
}

nlohmann::json module_json(const ModuleModes& m) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& k : m.kernels) kernels.push_back(kernel_json(k));
  const ModeCounts c = count_modes(m.kernels);
  return {{"kind", m.kind},
          {"cubins", m.cubins},
          {"cubins_skipped", m.cubins_skipped},
          {"ptx_entries", m.ptx_entries},
          {"archs", m.archs},
          {"notes", m.notes},
          {"summary",
           {{"kernels", c.kernels},
            {"words_used", c.words_used},
            {"definite", c.definite},
            {"escapes", c.escapes},
            {"indirect_kernels", c.indirect_kernels}}},
          {"kernels", kernels}};
}

Result<ModuleModes> module_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("kernels") || !j["kernels"].is_array())
    return make_error("no kernels array");
  ModuleModes m;
  try {
    m.kind = j.value("kind", std::string("cubin"));
    m.cubins = j.value("cubins", uint64_t{0});
    m.cubins_skipped = j.value("cubins_skipped", uint64_t{0});
    m.ptx_entries = j.value("ptx_entries", uint64_t{0});
    if (j.contains("archs")) m.archs = j["archs"].get<std::vector<uint32_t>>();
    if (j.contains("notes")) m.notes = j["notes"].get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    return make_error(std::string("bad module fields: ") + e.what());
  }
  for (const auto& k : j["kernels"]) {
    auto kernel = kernel_from_json(k);
    if (!kernel) return kernel.error();
    m.kernels.push_back(std::move(*kernel));
  }
  return m;
}

ModeCounts count_modes(const std::vector<KernelModes>& kernels) {
  ModeCounts c;
  for (const auto& k : kernels) {
    ++c.kernels;
    c.indirect_kernels += k.indirect_access;
    for (WordMode m : k.words) {
      if (m == WordMode::kNone) continue;
      ++c.words_used;
      if (m == WordMode::kEscapes)
        ++c.escapes;
      else
        ++c.definite;
    }
  }
  return c;
}

}  // namespace racetrack::code
