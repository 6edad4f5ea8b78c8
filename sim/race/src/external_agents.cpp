#include "racetrack/race/external_agents.h"

#include <algorithm>
#include <utility>

namespace racetrack::race {

void ExternalAgents::drain(std::vector<ExternalAccess>& out) {
  out = std::move(in_flight_);
  in_flight_.clear();
}

void ExternalAgents::on_op(const v1::Op& op, const AccessResolver& resolver,
                           std::vector<ExternalAccess>& completed) {
  completed.clear();
  if (op.has_record() && !in_flight_.empty()) {
    const uint32_t event = op.record().event();
    for (auto it = in_flight_.begin(); it != in_flight_.end();) {
      if (it->done_event == event) {
        completed.push_back(*it);
        it = in_flight_.erase(it);
      } else {
        ++it;
      }
    }
    return;
  }
  if (!op.has_annotation()) return;
  const v1::Annotation& note = op.annotation();
  if (note.kind() == v1::ANNOTATE_EXTERNAL_DONE) {
    for (auto it = in_flight_.begin(); it != in_flight_.end();) {
      if (it->agent == note.agent() && it->done_event == 0) {
        completed.push_back(*it);
        it = in_flight_.erase(it);
      } else {
        ++it;
      }
    }
    return;
  }
  if (note.kind() != v1::ANNOTATE_EXTERNAL_ACCESS) return;
  const v1::Access& a = note.access();
  ExternalAccess e{note.agent(), note.done_event(), op.seq(), op.thread(), {}, 0};
  // An address without a region is device 0's memory (docs/trace-format.md).
  SpaceKey space = device_space(0);
  uint64_t lo = a.address();
  if (const RegionInfo* r = a.region() ? resolver.region(a.region()) : nullptr) {
    space = r->space;
    lo = r->base + a.offset();
  }
  e.access.space = space;
  e.access.lo = lo;
  e.access.hi = lo + a.size();
  e.access.reads = a.mode() != v1::MODE_WRITE;
  e.access.writes = a.mode() != v1::MODE_READ;
  e.access.mode_known = a.mode() != v1::MODE_UNKNOWN;
  e.access.precision = a.precision();
  e.access.region = resolver.find_region(space, e.access.lo, e.access.hi);
  if (const RegionInfo* r = resolver.region(e.access.region)) e.label = r->label;
  in_flight_.push_back(e);
}

void ExternalAgents::conflicting(const ResolvedAccess& a, std::vector<const ExternalAccess*>& out) const {
  out.clear();
  for (const ExternalAccess& e : in_flight_)
    if (e.access.space == a.space && e.access.lo < a.hi && a.lo < e.access.hi &&
        (e.access.writes || a.writes))
      out.push_back(&e);
}

namespace {

std::string agent_name(const HazardSide& s, const TraceTables& t) {
  return std::string(t.string(s.external_agent));
}

std::string second_ref(const HazardSide& b, const TraceTables& t) {
  return "#" + std::to_string(b.seq) + " (" + side_title(b, t) + ")";
}

}  // namespace

std::string external_explanation(const Hazard& h, const TraceTables& t) {
  const HazardSide& a = h.first;
  const HazardSide& b = h.second;
  const std::string where_b = b.stream ? t.stream_label(b.stream) : "host thread " + std::to_string(b.thread);
  const std::string declared = "declared at #" + std::to_string(a.external_seq);
  if (a.seq == a.external_seq)
    return "#" + std::to_string(b.seq) + " on " + where_b + " touches bytes external agent " +
           agent_name(a, t) + " (" + declared + ") is still accessing: its completion is observed only later";
  const std::string observed =
      a.external_event
          ? "the record of " + t.event_label(a.external_event) + " on " + t.stream_label(a.stream)
          : "its external-done on host thread " + std::to_string(a.thread);
  return "#" + std::to_string(b.seq) + " on " + where_b + " is not ordered after #" + std::to_string(a.seq) +
         " (" + observed + "), where the completion of external agent " + agent_name(a, t) + "'s access (" +
         declared + ") is observed";
}

Fix external_fix(const Hazard& h, const TraceTables& t) {
  const HazardSide& a = h.first;
  const HazardSide& b = h.second;
  Fix f;
  const std::string agent = agent_name(a, t);
  if (a.seq == a.external_seq || !b.stream) {
    f.text = "submit " + second_ref(b, t) + " only after " + agent +
             "'s completion is observed (wait on the event it completes through, or poll its completion flag "
             "first)";
    return f;
  }
  if (!a.external_event) {
    f.text = "launch " + second_ref(b, t) + " from the thread that observed " + agent +
             "'s completion, after it, or signal that thread's observation to this one";
    return f;
  }
  f.available = true;
  f.edit = FixEdit{a.seq, a.stream, a.thread, b.seq, b.stream, b.thread, a.external_event};
  const std::string event = t.event_label(a.external_event);
  f.text = "make " + t.stream_label(b.stream) + " wait on " + event + " (recorded at #" +
           std::to_string(a.seq) + ", where " + agent + "'s completion is observed) before " +
           second_ref(b, t);
  f.pytorch =
      t.stream_label(b.stream) + ".wait_event(" + event + ")  # before the first use of the transferred data";
  return f;
}

}  // namespace racetrack::race
