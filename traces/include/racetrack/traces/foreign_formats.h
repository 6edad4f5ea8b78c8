// Other tools' trace files, recognised so that handing one to racetrack gets
// a message saying what it is and how to capture a racetrack trace instead,
// rather than a protobuf parse error.
#pragma once

#include <optional>
#include <string>

namespace racetrack {

// When the file at `path` is a PyTorch profiler or other Chrome trace JSON,
// a gzip-compressed file, an Nsight Systems report or SQLite export, an
// Nsight Compute report, or a Perfetto trace: what it is and what to do
// instead (one line, no path).
// Nothing for unreadable files and anything unrecognised. Asked only about
// files that failed to open as racetrack traces, so it never second-guesses one.
std::optional<std::string> identify_foreign_trace(const std::string& path);

}  // namespace racetrack
