// Exports a trace for timeline viewers: Perfetto's protobuf TrackEvent format
// (ui.perfetto.dev) or Chrome trace JSON (chrome://tracing, Perfetto's legacy
// importer). Both read the input as a stream of chunks and write as they go,
// so memory stays bounded by the entity tables, not by the op count. See
// docs/export.md for lanes, times, names and flows.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "racetrack/traces/progress.h"
#include "racetrack/traces/result.h"

namespace racetrack {

enum class ExportFormat { kPerfetto, kChrome };

// By the output's extension: .json -> Chrome JSON, anything else -> Perfetto.
ExportFormat export_format_for(const std::string& out_path);

struct ExportStats {
  uint64_t slices = 0;  // one per op
  uint64_t flows = 0;   // one per record -> wait pair
  uint64_t bytes = 0;   // written to the output
};

// Errors name the input file and offset (a bad chunk) or the output file.
// The path overloads remove a partly written output on failure. `progress`
// hears the bytes read of each of the two passes over the input.
Result<ExportStats> export_perfetto(const std::string& in_path, std::ostream& out,
                                    const Progress& progress = {});
Result<ExportStats> export_perfetto(const std::string& in_path, const std::string& out_path,
                                    const Progress& progress = {});
Result<ExportStats> export_chrome(const std::string& in_path, std::ostream& out,
                                  const Progress& progress = {});
Result<ExportStats> export_chrome(const std::string& in_path, const std::string& out_path,
                                  const Progress& progress = {});

}  // namespace racetrack
