#include "check_inputs.h"

#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace racetrack::cli {
namespace fs = std::filesystem;

namespace {

Result<std::vector<std::string>> directory_traces(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".rtrace" && entry.is_regular_file(ec))
      out.push_back(entry.path().string());
  if (ec) return Error{"cannot list the directory: " + ec.message(), {}, dir};
  if (out.empty()) return Error{"no trace (*.rtrace) in this directory", {}, dir};
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<std::string>> glob_traces(const std::string& pattern) {
  glob_t found{};
  const int rc = glob(pattern.c_str(), 0, nullptr, &found);
  std::vector<std::string> out;
  if (rc == 0)
    for (size_t i = 0; i < found.gl_pathc; ++i) out.emplace_back(found.gl_pathv[i]);
  globfree(&found);
  if (out.empty()) return Error{"no file matches this pattern", {}, pattern};
  return out;  // glob sorts
}

}  // namespace

Result<std::vector<std::string>> expand_trace_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& path) {
    if (seen.insert(fs::absolute(path).lexically_normal().string()).second) out.push_back(path);
  };
  for (const std::string& input : inputs) {
    std::error_code ec;
    const bool exists = fs::exists(input, ec);
    if (exists && fs::is_directory(input, ec)) {
      auto traces = directory_traces(input);
      if (!traces) return traces.error();
      for (const std::string& p : *traces) add(p);
    } else if (!exists && input.find_first_of("*?[") != std::string::npos) {
      auto traces = glob_traces(input);
      if (!traces) return traces.error();
      for (const std::string& p : *traces) add(p);
    } else {
      add(input);
    }
  }
  return out;
}

}  // namespace racetrack::cli
