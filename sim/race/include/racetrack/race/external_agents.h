// Agents outside CUDA streams (hazard shape C14, docs/hazards.md): RDMA or
// GPUDirect transfers, a forked writer, another process. An
// ANNOTATE_EXTERNAL_ACCESS annotation declares the agent's access; it is in
// flight until its completion is observed: at the next record of its
// `done_event` (the access is ordered before that record, so a stream that
// waits on it, or a host that synchronises with it, is ordered after the
// access) or at the agent's next ANNOTATE_EXTERNAL_DONE (ordered before that
// host point). An access that overlaps an in-flight one (either writing) is
// a hazard whatever the ordering; after the completion the access is
// checked like stream work.
#pragma once

#include <string>
#include <vector>

#include "racetrack/race/access.h"
#include "racetrack/race/fix.h"
#include "racetrack/race/hazard.h"

namespace racetrack::race {

struct ExternalAccess {
  uint32_t agent = 0;       // string id of its name
  uint32_t done_event = 0;  // 0: completed by the agent's EXTERNAL_DONE
  uint64_t seq = 0;         // the declaring annotation
  uint32_t thread = 0;
  ResolvedAccess access;
  uint32_t label = 0;  // of the region it touches
};

class ExternalAgents {
 public:
  // An op that runs: declares accesses (EXTERNAL_ACCESS) and moves those
  // whose completion `op` observes (a record of their done event, their
  // agent's EXTERNAL_DONE) to `completed`.
  void on_op(const v1::Op& op, const AccessResolver& resolver, std::vector<ExternalAccess>& completed);
  // The in-flight accesses that conflict with `a`.
  void conflicting(const ResolvedAccess& a, std::vector<const ExternalAccess*>& out) const;
  bool any_in_flight() const { return !in_flight_.empty(); }
  // Moves every access still in flight to `out` (after the last op: what
  // nothing observed).
  void drain(std::vector<ExternalAccess>& out);

 private:
  std::vector<ExternalAccess> in_flight_;
};

// The report's words for a hazard whose first side is an external agent's
// access (HazardSide::external_agent).
std::string external_explanation(const Hazard& h, const TraceTables& tables);
Fix external_fix(const Hazard& h, const TraceTables& tables);

}  // namespace racetrack::race
