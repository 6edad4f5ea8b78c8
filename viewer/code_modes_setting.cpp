#include "code_modes_setting.h"

#include <mutex>

namespace racetrack::viewer {
namespace {

struct State {
  std::mutex mutex;
  CodeModesSetting setting;
  std::string path;  // of the trace `table` is for (one trace at a time)
  std::shared_ptr<race::CodeModeTable> table;
};

State& state() {
  static State s;
  return s;
}

}  // namespace

void set_code_modes(CodeModesSetting setting) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.setting = std::move(setting);
  s.table.reset();
  s.path.clear();
}

std::shared_ptr<race::CodeModeTable> code_modes_for(const std::string& path) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.setting.enabled) return nullptr;
  if (!s.table || s.path != path) {
    race::CodeModesOptions options = race::default_code_modes_options();
    if (!s.setting.cache.empty()) options.cache_directory = s.setting.cache;
    s.table = std::make_shared<race::CodeModeTable>(std::move(options));
    s.path = path;
  }
  return s.table;
}

}  // namespace racetrack::viewer
