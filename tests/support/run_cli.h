// Runs the `racetrack` binary (its path in RACETRACK_CLI, set by CMake) the
// way a shell user does, capturing the exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

namespace racetrack::testing {

struct CliRun {
  int code = -1;  // the exit status, -1 when it did not exit normally
  std::string out, err;
};

// Single-quotes `s` for /bin/sh.
inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// `args` is pasted into a shell command line: quote paths with shell_quote.
// The output goes to files in `dir` (overwritten by the next run).
inline CliRun run_cli(const TempDir& dir, const std::string& args) {
#ifndef RACETRACK_CLI
#error "run_cli needs RACETRACK_CLI, the path of the racetrack binary"
#endif
  const std::string out = dir.path("cli.stdout"), err = dir.path("cli.stderr");
  const std::string command =
      shell_quote(RACETRACK_CLI) + " " + args + " >" + shell_quote(out) + " 2>" + shell_quote(err);
  const int status = std::system(command.c_str());
  CliRun run;
  run.code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = read_bytes(out);
  run.err = read_bytes(err);
  return run;
}

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace racetrack::testing
