#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "commands.h"
#include "own_directory.h"

namespace racetrack::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kViewer = "racetrack-viewer";

// Next to this binary first (a build tree or an install keeps them
// together), then on PATH.
std::optional<fs::path> find_viewer(std::string& searched) {
  if (const auto dir = own_directory()) {
    const fs::path beside = *dir / kViewer;
    searched = beside.parent_path().string();
    if (::access(beside.c_str(), X_OK) == 0) return beside;
  }
  if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
      if (dir.empty()) continue;
      const fs::path candidate = fs::path(dir) / kViewer;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  searched += searched.empty() ? "PATH" : " and PATH";
  return std::nullopt;
}

int run_view(const std::vector<std::string>& args) {
  std::string searched;
  const auto viewer = find_viewer(searched);
  if (!viewer) {
    std::cerr << "view: " << kViewer << " is not built or installed (looked in " << searched
              << "); build it with Qt 6 (qt6-base-dev) and -DRACETRACK_BUILD_VIEWER=ON\n";
    return kExitBadInput;
  }
  std::vector<char*> argv;
  std::string name = kViewer;
  argv.push_back(name.data());
  std::vector<std::string> copies = args;
  for (std::string& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(viewer->c_str(), argv.data());
  std::cerr << "view: cannot run " << viewer->string() << ": " << std::strerror(errno) << "\n";
  return kExitBadInput;
}

}  // namespace

void add_view(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("view", "Open a trace in the timeline viewer (racetrack-viewer)");
  // Everything after `view` goes to racetrack-viewer as it is.
  cmd->prefix_command();
  cmd->footer(
      "Usage: racetrack view FILE|DIR|'GLOB'... [--divergence DIFF.json] [--screenshot OUT.png [--select-hazard N] [--size WxH]] "
      "[--no-code-modes] "
      "[--modes-cache DIR]\n"
      "Several traces (a directory of rank traces, a quoted glob) show side by side, a timeline per rank.\n"
      "Runs racetrack-viewer with the same arguments; see racetrack-viewer --help and docs/viewer.md.");
  cmd->callback([cmd, &exit_code] { exit_code = run_view(cmd->remaining()); });
}

}  // namespace racetrack::cli
