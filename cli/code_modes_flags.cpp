#include "code_modes_flags.h"

namespace racetrack::cli {

std::shared_ptr<race::CodeModeTable> CodeModeFlags::table() const {
  if (off) return nullptr;
  race::CodeModesOptions options = race::default_code_modes_options();
  if (!cache.empty()) options.cache_directory = cache;
  return std::make_shared<race::CodeModeTable>(std::move(options));
}

void add_code_mode_flags(CLI::App* cmd, CodeModeFlags& flags) {
  cmd->add_flag("--no-code-modes", flags.off,
                "do not use the kernels' machine code (the trace's modules) for their argument modes");
  cmd->add_option(
      "--modes-cache", flags.cache,
      "directory caching machine-code analyses by module hash (default ~/.cache/racetrack/modes)");
}

}  // namespace racetrack::cli
