#include "racetrack/code/modes_cache.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "racetrack/code/modes_report.h"
#include "racetrack/traces/output_file.h"

namespace racetrack::code {

std::string ModesCache::default_directory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/racetrack/modes";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/racetrack/modes";
  return {};
}

std::string ModesCache::path_for(const std::string& sha256, std::optional<uint32_t> arch) const {
  return directory_ + "/" + sha256 + (arch ? "-sm" + std::to_string(*arch) : std::string()) + ".json";
}

std::optional<ModuleModes> ModesCache::load(const std::string& sha256, std::optional<uint32_t> arch) const {
  if (directory_.empty()) return std::nullopt;
  std::ifstream in(path_for(sha256, arch), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  if (j.value("analyzer_version", 0u) != kAnalyzerVersion || j.value("sha256", std::string()) != sha256)
    return std::nullopt;
  if (!j.contains("module")) return std::nullopt;
  auto m = module_from_json(j["module"]);
  if (!m) return std::nullopt;
  return std::move(*m);
}

Status ModesCache::store(const std::string& sha256, std::optional<uint32_t> arch,
                         const ModuleModes& modes) const {
  if (directory_.empty()) return make_error("no cache directory (neither XDG_CACHE_HOME nor HOME is set)");
  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  if (ec) return make_error("cannot create " + directory_ + ": " + ec.message());
  const nlohmann::json j = {
      {"analyzer_version", kAnalyzerVersion}, {"sha256", sha256}, {"module", module_json(modes)}};
  return write_file_atomically(path_for(sha256, arch), j.dump());
}

}  // namespace racetrack::code
