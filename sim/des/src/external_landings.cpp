#include "external_landings.h"

namespace racetrack::des {

void ExternalLandings::on_op(const v1::Op& op, uint32_t index, const race::AccessResolver& resolver,
                             Program& p) {
  agents_.on_op(op, resolver, completed_);
  land(index, resolver, p);
}

void ExternalLandings::land(uint32_t observer, const race::AccessResolver& resolver, Program& p) {
  for (const race::ExternalAccess& e : completed_) {
    const size_t declared = p.index_of(e.seq);
    // Of unknown mode it neither reads nor writes, as a kernel's access.
    if (declared == p.ops.size() || !e.access.mode_known) continue;
    const race::RegionInfo* r = resolver.region(e.access.region);
    const race::ResolvedAccess& a = e.access;
    p.externals.push_back({static_cast<uint32_t>(declared),
                           observer,
                           {a.space, a.space, a.lo, a.hi, r ? r->label : 0u, a.reads, a.writes}});
  }
}

void ExternalLandings::finish(const race::AccessResolver& resolver, Program& p) {
  agents_.drain(completed_);
  land(kNever, resolver, p);
}

}  // namespace racetrack::des
