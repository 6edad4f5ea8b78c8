#include "capture_values.h"

#include <filesystem>
#include <iostream>

#include "racetrack/diverge/values_trace.h"

namespace racetrack::cli {
namespace {

namespace fs = std::filesystem;

// The files `pattern` names: itself, or with %p as any process id.
std::vector<std::string> values_files(const std::string& pattern) {
  const size_t at = pattern.find("%p");
  if (at == std::string::npos)
    return fs::exists(pattern) ? std::vector<std::string>{pattern} : std::vector<std::string>{};
  const std::string head = pattern.substr(0, at), tail = pattern.substr(at + 2);
  const fs::path dir = fs::path(head).parent_path();
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().string();
    if (name.size() > head.size() + tail.size() && name.compare(0, head.size(), head) == 0 &&
        name.compare(name.size() - tail.size(), tail.size(), tail) == 0)
      out.push_back(name);
  }
  return out;
}

}  // namespace

void attach_values(const std::string& pattern, const std::vector<std::string>& traces) {
  const std::vector<std::string> files = values_files(pattern);
  if (files.empty()) {
    std::cerr << "racetrack capture: no values record was written at " << pattern
              << " (the program never imported torch, or racetrack_torch said why above)\n";
    return;
  }
  if (files.size() != 1 || traces.size() != 1) {
    std::cerr << "racetrack capture: " << files.size() << " values record(s) for " << traces.size()
              << " trace(s), left beside them (racetrack convert RECORD OUT makes a trace of each; "
                 "racetrack diff reads either):";
    for (const std::string& f : files) std::cerr << " " << f;
    std::cerr << "\n";
    return;
  }
  auto record = diverge::read_values(files.front());
  if (!record) {
    std::cerr << "racetrack capture: values not added to the trace: " << record.error().describe() << "\n";
    return;
  }
  if (auto added = diverge::add_values_to_trace(traces.front(), *record); !added) {
    std::cerr << "racetrack capture: values not added to the trace: " << added.error().describe() << "\n";
    return;
  }
  std::cerr << "racetrack capture: " << traces.front() << ": added the values of " << record->records.size()
            << " operator(s) from " << files.front() << "\n";
}

}  // namespace racetrack::cli
