// `capture --torch --values`: after the program ran, its values records go
// into the trace it wrote, or are said to be beside it (docs/diff.md).
#pragma once

#include <string>
#include <vector>

namespace racetrack::cli {

// `pattern`: the --values path, absolute, %p standing for a process id.
// `traces`: the traces the program's processes wrote. Messages go to stderr;
// nothing here changes the command's exit status.
void attach_values(const std::string& pattern, const std::vector<std::string>& traces);

}  // namespace racetrack::cli
