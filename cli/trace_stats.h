// What `racetrack info` reports about a trace, gathered in one streaming pass.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "racetrack/traces/describe.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::cli {

// Regions of one space: how many, and their bytes.
struct RegionTotal {
  uint64_t count = 0, bytes = 0;
};

struct TraceStats {
  TraceTables tables;  // without regions, which grow with the trace: they are counted below
  uint64_t regions = 0;
  std::map<std::string, RegionTotal> regions_by_space;
  uint64_t ops = 0;
  uint64_t chunks = 0;
  uint64_t operator_values = 0;  // racetrack_torch's values records (racetrack diff)
  std::array<uint64_t, kOpKindCount> per_kind{};
  std::map<uint32_t, uint64_t> per_stream;  // stream id -> ops (0 = host)
  std::map<std::string, uint64_t> bytes_per_direction;
  std::set<uint32_t> nvtx_paths;
  int64_t first_time = 0, last_time = 0;
  bool any_time = false;
  bool device_times = false;
};

// Streams the file once; errors stop the pass and are returned (the stats
// gathered from complete chunks before the error are kept in `stats`).
Status gather_stats(const std::string& path, TraceStats& stats);
std::string format_stats(const TraceStats& stats);
// The same as JSON; `status` is what gather_stats returned.
std::string format_stats_json(const TraceStats& stats, const std::string& path, const Status& status);
// "6.58 s", "30.5 µs", "812 ns": three significant digits in the unit that fits.
std::string format_duration(double ns);

}  // namespace racetrack::cli
