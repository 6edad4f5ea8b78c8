// Progress of long work on one stderr line ("\rchecking: 42%"), redrawn in
// place with \r. Shown only when stderr is a terminal and the work has run
// for half a second (short inputs never show it); the line is wiped when the
// work ends, so what the command prints next starts on a clean line.
// RACETRACK_PROGRESS=always shows it whatever stderr is (logs, tests);
// RACETRACK_PROGRESS=never hides it.
#pragma once

#include <chrono>
#include <iosfwd>
#include <string>

#include "racetrack/traces/progress.h"

namespace racetrack::cli {

class ProgressLine {
 public:
  // Decides from isatty(stderr) and RACETRACK_PROGRESS.
  ProgressLine();
  // Writes to `out` when `enabled`, once `delay` has passed since construction.
  ProgressLine(std::ostream& out, bool enabled, std::chrono::milliseconds delay);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // The callback to hand to a library; empty when disabled. Valid while
  // this object lives.
  Progress callback();
  // Wipes the line (if anything was shown).
  void finish();

 private:
  void update(std::string_view stage, uint64_t done, uint64_t total);

  std::ostream* out_;
  bool enabled_;
  std::chrono::steady_clock::time_point show_from_;
  std::string shown_;  // the text on the line now
};

}  // namespace racetrack::cli
