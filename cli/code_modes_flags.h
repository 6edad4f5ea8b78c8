// The flags check, sim and replay share for machine-code access modes
// (docs/check.md, "Where access modes come from"): on by default,
// `--no-code-modes` turns them off, `--modes-cache DIR` moves the cache.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "racetrack/race/code_modes.h"

namespace racetrack::cli {

struct CodeModeFlags {
  bool off = false;
  std::string cache;  // "": the default (~/.cache/racetrack/modes)

  // The table for one trace; null with --no-code-modes.
  std::shared_ptr<race::CodeModeTable> table() const;
};

void add_code_mode_flags(CLI::App* cmd, CodeModeFlags& flags);

}  // namespace racetrack::cli
