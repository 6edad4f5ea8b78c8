#include "capture_config.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

namespace racetrack::capture {
namespace {

Result<int64_t> parse_integer(const char* name, const char* text, int64_t min, int64_t max) {
  int64_t value = 0;
  const char* end = text + std::strlen(text);
  auto [ptr, ec] = std::from_chars(text, end, value);
  if (ec != std::errc() || ptr != end || value < min || value > max)
    return make_error(std::string(name) + "=" + text + ": expected an integer from " + std::to_string(min) +
                      " to " + std::to_string(max));
  return value;
}

// "dir/name.ext" + ".x" -> "dir/name.x.ext" (no extension: appended).
std::string insert_before_extension(const std::string& path, const std::string& insert) {
  const size_t slash = path.rfind('/');
  const size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) ||
      dot == (slash == std::string::npos ? 0 : slash + 1))
    return path + insert;
  return path.substr(0, dot) + insert + path.substr(dot);
}

}  // namespace

Result<CaptureConfig> config_from_env(const GetEnv& getenv) {
  CaptureConfig config;
  if (const char* v = getenv("RACETRACK_CAPTURE_OUTPUT"); v != nullptr && *v != '\0')
    config.output_pattern = v;
  if (const char* v = getenv("RACETRACK_CAPTURE_INDEX"); v != nullptr) config.index_path = v;
  if (const char* v = getenv("RACETRACK_CAPTURE_MODE"); v != nullptr && *v != '\0') {
    if (std::strcmp(v, "full") == 0)
      config.mode = CaptureMode::kFull;
    else if (std::strcmp(v, "activity") == 0)
      config.mode = CaptureMode::kActivityOnly;
    else
      return make_error(std::string("RACETRACK_CAPTURE_MODE=") + v + ": expected full or activity");
  }
  if (const char* v = getenv("RACETRACK_CAPTURE_NVTX"); v != nullptr && *v != '\0') {
    auto on = parse_integer("RACETRACK_CAPTURE_NVTX", v, 0, 1);
    if (!on) return on.error();
    config.nvtx = *on == 1;
  }
  if (const char* v = getenv("RACETRACK_CAPTURE_FLUSH_MS"); v != nullptr && *v != '\0') {
    auto ms = parse_integer("RACETRACK_CAPTURE_FLUSH_MS", v, 10, 60'000);
    if (!ms) return ms.error();
    config.flush_period_ms = *ms;
  }
  if (const char* v = getenv("RACETRACK_CAPTURE_CODE"); v != nullptr && *v != '\0') {
    auto on = parse_integer("RACETRACK_CAPTURE_CODE", v, 0, 1);
    if (!on) return on.error();
    config.code = *on == 1;
  }
  if (const char* v = getenv("RACETRACK_CAPTURE_MAX_MODULE_BYTES"); v != nullptr && *v != '\0') {
    auto bytes = parse_integer("RACETRACK_CAPTURE_MAX_MODULE_BYTES", v, 0, int64_t{1} << 40);
    if (!bytes) return bytes.error();
    config.max_module_bytes = static_cast<uint64_t>(*bytes);
  }
  for (const char* name : {"RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PMI_RANK"}) {
    const char* v = getenv(name);
    if (v == nullptr || *v == '\0') continue;
    auto rank = parse_integer(name, v, 0, 1 << 24);
    if (!rank) return rank.error();
    config.rank = static_cast<int>(*rank);
    break;
  }
  return config;
}

std::string expand_output_path(const std::string& pattern, pid_t pid, int rank) {
  std::string out;
  bool has_rank = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      const char c = pattern[i + 1];
      if (c == 'p') {
        out += std::to_string(pid);
        ++i;
        continue;
      }
      if (c == 'r') {
        out += rank >= 0 ? std::to_string(rank) : std::string("none");
        has_rank = true;
        ++i;
        continue;
      }
    }
    out += pattern[i];
  }
  if (rank >= 0 && !has_rank) out = insert_before_extension(out, ".rank" + std::to_string(rank));
  return out;
}

Result<ClaimedOutput> claim_output(const std::string& path, pid_t pid) {
  for (const std::string& candidate : {path, insert_before_extension(path, "." + std::to_string(pid))}) {
    const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) return ClaimedOutput{candidate, fd};
    if (errno != EEXIST) return make_error(candidate + ": cannot create: " + std::strerror(errno));
  }
  return make_error(path + ": exists, and so does its per-process name; remove old traces first");
}

}  // namespace racetrack::capture
