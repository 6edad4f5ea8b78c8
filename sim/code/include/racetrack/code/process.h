// Running a helper program (nvdisasm, python) without a shell: argv is
// passed as is, stdout and stderr are collected, and the child is killed
// when it runs past its time.
#pragma once

#include <chrono>
#include <functional>
#include <string_view>
#include <string>
#include <vector>

#include "racetrack/traces/result.h"

namespace racetrack::code {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  bool timed_out = false;
  std::string out, err;
};

// An error only when the program cannot be started; a program that fails
// returns its exit code and output. `on_stderr` (optional) hears the
// program's stderr as it comes (progress lines), besides collecting it.
Result<ProcessResult> run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                                  const std::function<void(std::string_view)>& on_stderr = {});

}  // namespace racetrack::code
