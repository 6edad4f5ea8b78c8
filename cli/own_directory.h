// The directory of the running `racetrack` binary: companion programs and
// libraries (the viewer, the capture library) are looked up beside it.
#pragma once

#include <filesystem>
#include <optional>

namespace racetrack::cli {

inline std::optional<std::filesystem::path> own_directory() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  return self.parent_path();
}

}  // namespace racetrack::cli
