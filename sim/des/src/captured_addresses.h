// CUDA graph lifetimes in the simulator (hazard shape C16, docs/sim.md,
// "Graph launches"): a graph launch replays its captured nodes on the
// addresses they had at capture. Where the region held then has been freed
// (and its bytes maybe handed to another owner), the launch really touches
// whatever now lives there; the lifetime-respecting baseline instead gives
// the freed region bytes of its own, never reused, holding what the region
// held when it was freed. Captured ops themselves do not run.
#pragma once

#include <vector>

#include "racetrack/des/program.h"
#include "racetrack/race/graph_lifetimes.h"

namespace racetrack::des {

// The baseline's own bytes of freed region `region` (never a real space:
// the top bit is set).
inline race::SpaceKey retired_space(uint32_t region) {
  return 0x80000000u | region;
}
inline bool is_retired_space(race::SpaceKey space) {
  return (space & 0x80000000u) != 0;
}

class CapturedAddresses {
 public:
  // Call for every op before the resolver sees it; returns whether `op` is
  // captured (not run: it runs with the graph's launches).
  bool on_op(const v1::Op& op, const race::AccessResolver& resolver);
  // The space the baseline gives access `a` of `op` (index `index` in `p`):
  // a.space, or the retired space of the region a graph launch's captured
  // address belonged to, if that region was freed since the capture; then
  // the free is noted in p.retirements.
  race::SpaceKey reference_space(const v1::Op& op, const race::ResolvedAccess& a, Program& p);

 private:
  race::GraphLifetimes graphs_;
  std::vector<v1::Op> unjoined_;
  std::vector<uint32_t> retired_;  // regions already in p.retirements
};

}  // namespace racetrack::des
