// Results cached by module content: ${XDG_CACHE_HOME:-~/.cache}/racetrack/
// modes/<sha256>[-sm<N>].json, written atomically. An entry of another
// analyzer version, for other content, or that does not parse is ignored
// (and rewritten by the next store).
#pragma once

#include <optional>

#include "racetrack/code/module_modes.h"

namespace racetrack::code {

class ModesCache {
 public:
  // The default directory; "" when neither XDG_CACHE_HOME nor HOME is set.
  static std::string default_directory();
  explicit ModesCache(std::string directory) : directory_(std::move(directory)) {}

  std::string path_for(const std::string& sha256, std::optional<uint32_t> arch) const;
  std::optional<ModuleModes> load(const std::string& sha256, std::optional<uint32_t> arch) const;
  Status store(const std::string& sha256, std::optional<uint32_t> arch, const ModuleModes& modes) const;

 private:
  std::string directory_;
};

}  // namespace racetrack::code
