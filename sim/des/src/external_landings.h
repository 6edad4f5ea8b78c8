// Agents outside CUDA streams in the simulator (hazard shape C14,
// docs/sim.md, "External agents"): an RDMA or GPUDirect transfer, a writer
// process. Each declared access (ANNOTATE_EXTERNAL_ACCESS) is an agent of
// its own with one access: it may land as early as its declaration and as
// late as the op that observes its completion (the record of its done
// event, its agent's EXTERNAL_DONE), or never if nothing observes it. The
// baseline lands it at its declaration; a run lands it at the latest point,
// the observer's start (reads) and end (writes), so holding the observer
// back delays it.
#pragma once

#include <vector>

#include "racetrack/des/program.h"
#include "racetrack/race/external_agents.h"

namespace racetrack::des {

class ExternalLandings {
 public:
  // Call for every op that runs, before the resolver sees it, with the op's
  // index in `p`: notes its declarations, and lands the accesses it
  // observes in p.externals.
  void on_op(const v1::Op& op, uint32_t index, const race::AccessResolver& resolver, Program& p);
  // After the last op: what nothing observed never lands.
  void finish(const race::AccessResolver& resolver, Program& p);

 private:
  void land(uint32_t observer, const race::AccessResolver& resolver, Program& p);

  race::ExternalAgents agents_;
  std::vector<race::ExternalAccess> completed_;
};

}  // namespace racetrack::des
