#include "external_landings.h"

#include <algorithm>

namespace racetrack::des {

void ExternalLandings::on_op(const v1::Op& op, uint32_t index, const race::AccessResolver& resolver,
                             Program& p) {
  agents_.on_op(op, resolver, completed_);
  if (op.has_annotation() && op.annotation().kind() == v1::ANNOTATE_EXTERNAL_ACCESS)
    pending_.push_back({op.annotation().agent(), op.annotation().done_event()});
  land(index, resolver, p);
}

void ExternalLandings::land(uint32_t observer, const race::AccessResolver& resolver, Program& p) {
  for (const race::ExternalAccess& e : completed_) {
    auto it = std::find_if(pending_.begin(), pending_.end(), [&](const Pending& d) {
      return d.agent == e.agent && d.done_event == e.done_event;
    });
    if (it != pending_.end()) pending_.erase(it);
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
  // Completes what is still in flight as an observation nobody made would.
  while (!pending_.empty()) {
    const Pending d = pending_.front();
    v1::Op observe;
    if (d.done_event) {
      observe.mutable_record()->set_event(d.done_event);
    } else {
      observe.mutable_annotation()->set_kind(v1::ANNOTATE_EXTERNAL_DONE);
      observe.mutable_annotation()->set_agent(d.agent);
    }
    agents_.on_op(observe, resolver, completed_);
    const size_t before = pending_.size();
    land(kNever, resolver, p);
    if (pending_.size() == before) pending_.erase(pending_.begin());  // nothing to land: drop it
  }
}

}  // namespace racetrack::des
