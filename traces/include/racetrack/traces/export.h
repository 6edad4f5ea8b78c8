// Exports a trace for timeline viewers: Perfetto's protobuf TrackEvent format
// (ui.perfetto.dev) or Chrome trace JSON (chrome://tracing, Perfetto's legacy
// importer). Both read the input as a stream of chunks and write as they go,
// so memory stays bounded by the entity tables, not by the op count. See
// docs/export.md for tracks, times, names, flows, hazards and bounds.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "racetrack/traces/progress.h"
#include "racetrack/traces/result.h"

namespace racetrack {

enum class ExportFormat { kPerfetto, kChrome };

// By the output's extension: .json -> Chrome JSON, anything else -> Perfetto.
ExportFormat export_format_for(const std::string& out_path);

// A hazard to show: `racetrack check` finds them, its caller fills these
// (the trace library knows nothing of the checker). Several may share a
// number: every shown occurrence of one hazard group.
struct ExportHazard {
  uint64_t number = 0;  // check's [N]
  uint64_t first_seq = 0, second_seq = 0;
  std::string title;                                      // the hazard slice's name
  std::vector<std::pair<std::string, std::string>> args;  // shown with it: explanation, fix, ...
};

// What an export will write, known after its first pass over the input.
struct ExportPlan {
  uint64_t trace_ops = 0;  // in the input
  uint64_t ops = 0;        // in the window
  uint64_t first_seq = 0, last_seq = 0;
  uint64_t estimated_bytes = 0;
};

struct ExportOptions {
  std::vector<ExportHazard> hazards;
  // The window: ops with from_seq <= seq <= to_seq, at most max_ops of them.
  uint64_t from_seq = 0;
  uint64_t to_seq = std::numeric_limits<uint64_t>::max();
  uint64_t max_ops = std::numeric_limits<uint64_t>::max();
  // Called once before anything is written.
  std::function<void(const ExportPlan&)> on_plan;
  // Hears the bytes read of each pass over the input.
  Progress progress;
};

// Output bytes per op measured on `racetrack synth` traces (bench/export_bench).
inline constexpr uint64_t kPerfettoBytesPerOp = 330;
inline constexpr uint64_t kChromeBytesPerOp = 375;

struct ExportStats {
  uint64_t slices = 0;           // one per op in the window
  uint64_t flows = 0;            // one per record -> wait pair
  uint64_t hazards = 0;          // hazard slices written
  uint64_t hazards_outside = 0;  // hazards left out: an op outside the window
  uint64_t nvtx_ranges = 0;
  uint64_t overlap_tracks = 0;  // extra tracks for boxes that overlap on their lane
  uint64_t bytes = 0;           // written to the output
};

// Errors name the input file and offset (a bad chunk) or the output file.
// The path overloads remove a partly written output on failure.
Result<ExportStats> export_trace(const std::string& in_path, std::ostream& out, ExportFormat format,
                                 const ExportOptions& options);
Result<ExportStats> export_trace(const std::string& in_path, const std::string& out_path, ExportFormat format,
                                 const ExportOptions& options);

// The ranks of a run in one Perfetto trace (docs/distributed.md): a process
// per trace (pid rank + 1, named "rank R on HOST"), each with its own tracks
// and hazards (options[i] goes with paths[i]), the clocks aligned from the
// headers' time origins: a trace's times are shifted by its origin minus
// the earliest origin.
struct RankAlignment {
  std::string path;
  int32_t rank = -1;
  std::string host;
  int64_t offset_ns = 0;  // added to the trace's times
  bool clock_differs = false;  // its clock domain is not the first trace's: the alignment is approximate
};
Result<ExportStats> export_ranks(const std::vector<std::string>& paths, const std::vector<ExportOptions>& options,
                                 const std::string& out_path, std::vector<RankAlignment>* alignment = nullptr);

// The whole trace, without hazards.
Result<ExportStats> export_perfetto(const std::string& in_path, std::ostream& out);
Result<ExportStats> export_perfetto(const std::string& in_path, const std::string& out_path);
Result<ExportStats> export_chrome(const std::string& in_path, std::ostream& out);
Result<ExportStats> export_chrome(const std::string& in_path, const std::string& out_path);

}  // namespace racetrack
