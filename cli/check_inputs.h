// The traces `racetrack check` was given: several paths, directories (their
// .rtrace files) and glob patterns, for checking the ranks of a run at once.
#pragma once

#include <string>
#include <vector>

#include "racetrack/traces/result.h"

namespace racetrack::cli {

// Files as given (a missing one stays, to be reported as not checked);
// a directory's *.rtrace files, by name; a pattern with * ? or [ that names
// no file, expanded. An error names a directory with no trace or a pattern
// that matches nothing. Duplicates are dropped.
Result<std::vector<std::string>> expand_trace_inputs(const std::vector<std::string>& inputs);

}  // namespace racetrack::cli
