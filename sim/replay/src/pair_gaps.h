// How far apart in time a hazard's two ops sit: from the start of the part
// of the first op that --stress holds back (its device part, or the call of
// a host-only op) to the end of the second op's access (its device part, or
// its call). --stress sizes each hold-back from this gap (hold_back.h).
#pragma once

#include <string>
#include <vector>

#include "racetrack/des/program.h"
#include "racetrack/race/hazard.h"

namespace racetrack::replay {

enum class GapSource : uint8_t {
  kTraced,    // the trace's own timestamps, times the replay's time scale
  kModelled,  // the simulator's model of the program (--timing fast, or ops without times)
};

struct PairGap {
  int64_t ns = 0;  // 0 when the second op ended before the first started
  GapSource source = GapSource::kTraced;
};

// One gap per hazard. With `traced_timing` the gaps come from the trace's
// timestamps (scaled by `time_scale`, as the replay scales durations), and
// from the model for pairs the trace did not time; without it all come
// from the model: one simulator run of `program` as loaded.
Result<std::vector<PairGap>> pair_gaps(const std::string& path, const des::Program& program,
                                       const std::vector<race::Hazard>& hazards, bool traced_timing,
                                       double time_scale);

}  // namespace racetrack::replay
