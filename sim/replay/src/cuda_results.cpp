#include "cuda_results.h"

#include <algorithm>
#include <unordered_map>

#include "racetrack/des/values.h"
#include "racetrack/replay/plan.h"

namespace racetrack::replay {
namespace {

// Device parts that ran no kernel (event records and waits) take no time:
// they happen when issued, or when the op before them on their stream ended.
des::RunResult timeline(const des::Program& p, const std::vector<MeasuredTimes>& measured) {
  des::RunResult r;
  r.times.resize(p.ops.size());
  std::unordered_map<uint32_t, int64_t> stream_free;
  for (uint32_t i = 0; i < p.ops.size() && i < measured.size(); ++i) {
    const MeasuredTimes& m = measured[i];
    des::OpTimes& t = r.times[i];
    t.host_start = m.host_start;
    t.issue = m.issue;
    t.host_end = m.host_end;
    if (p.ops[i].device) {
      int64_t& free_at = stream_free[p.ops[i].stream];
      if (m.device_start >= 0) {
        t.device_start = m.device_start;
        t.device_end = std::max(m.device_start, m.device_end);
      } else {
        t.device_start = t.device_end = std::max(m.issue, free_at);
      }
      free_at = std::max(free_at, t.device_end);
    }
    r.makespan_ns = std::max({r.makespan_ns, t.host_end, t.device_end});
  }
  return r;
}

}  // namespace

HostRun assemble_run(const des::Program& p, const ArenaPlan& plan, const LaunchList& launches,
                     DeviceRun run) {
  HostRun out;
  mismatches_from_log(plan, launches.checks, std::move(run.log), out.mismatches);
  std::unordered_map<uint32_t, const std::vector<uint32_t>*> stamps;
  for (size_t a = 0; a < launches.arenas.size() && a < run.final_stamps.size(); ++a)
    stamps[launches.arenas[a].space] = &run.final_stamps[a];
  add_final_mismatches(
      p, plan,
      [&](uint32_t space, uint64_t g) {
        auto it = stamps.find(space);
        return it != stamps.end() && g < it->second->size() ? (*it->second)[g] : 0u;
      },
      out.mismatches);
  sort_mismatches(out.mismatches);
  out.times = timeline(p, run.times);
  return out;
}

}  // namespace racetrack::replay
