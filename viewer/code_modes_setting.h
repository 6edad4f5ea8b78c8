// Whether the viewer reads kernels' access modes from their machine code
// (the trace's modules), as check does by default; racetrack-viewer
// --no-code-modes turns it off. The check of a trace and the memory view's
// scans of it share one table, so each module is analysed once.
#pragma once

#include <memory>
#include <string>

#include "racetrack/race/code_modes.h"

namespace racetrack::viewer {

struct CodeModesSetting {
  bool enabled = true;
  std::string cache;  // "": the default cache directory
};
void set_code_modes(CodeModesSetting setting);

// The table for trace `path`; null when turned off. Any thread.
std::shared_ptr<race::CodeModeTable> code_modes_for(const std::string& path);

}  // namespace racetrack::viewer
