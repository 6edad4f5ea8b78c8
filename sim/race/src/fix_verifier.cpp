#include "fix_verifier.h"

#include "access_order.h"

namespace racetrack::race {
namespace {

// Hazards the shadow memory does not find, so order does not settle them: a
// graph's freed capture-time address, a capture left unjoined, and an
// external agent's transfer still in flight (its side is the declaration).
bool made_by_order(const Hazard& h) {
  const GraphLifetime life = h.second.graph_lifetime;
  if (life == GraphLifetime::kCapturedFreed || life == GraphLifetime::kUnjoinedCapture) return false;
  return !(h.first.external_agent && h.first.seq == h.first.external_seq);
}

CheckOptions order_only(CheckOptions options) {
  options.keep_all = false;
  options.explain_and_fix = false;
  options.progress = {};
  return options;
}

}  // namespace

FixVerifier::FixVerifier(const CheckOptions& options) : recheck_(order_only(options), this) {}

void FixVerifier::want_fix(const Hazard& h, const Fix& fix) {
  if (gave_up_) return;
  const FixEdit& e = fix.edit;
  const bool records = fix.available && !e.existing_event && !e.recapture;
  // A pair order makes takes its first op's epoch there; the others are
  // found again at their second op.
  const bool by_order = made_by_order(h);
  if (!ahead(by_order ? h.first.seq : h.second.seq) || (records && !ahead(e.after_seq))) {
    gave_up_ = true;
    return;
  }
  if (fix.available) fix_ops_.add(fix.edit);
  if (!by_order) {
    found_again_.insert(h.key());
    return;
  }
  const uint32_t i = static_cast<uint32_t>(pairs_.size());
  const bool completion = h.first.external_agent != 0;
  pairs_.push_back({h.key(),
                    {h.first.access.index, h.first.access.node},
                    {h.second.access.index, h.second.access.node},
                    completion});
  by_first_[h.first.seq].push_back(i);
  by_second_[h.second.seq].push_back(i);
}

void FixVerifier::want_explanation(const Hazard& h) {
  // Graph lifetimes, external agents and programmatic events are explained
  // from the hazard alone (check_file.cpp, explain()).
  if (gave_up_ || h.second.graph_lifetime != GraphLifetime::kNone || h.first.external_agent ||
      h.programmatic.wait_seq)
    return;
  if (!ahead(h.first.seq) || !ticks_.want(h.first, h.ordered_up_to_tick)) {
    gave_up_ = true;
    return;
  }
  waits_.want(h);
}

void FixVerifier::add_chunk(const v1::Chunk& chunk) {
  if (gave_up_) return;
  recheck_.add_entities(chunk);
  for (const v1::Op& op : chunk.ops()) {
    ticks_.note(op, recheck_.tables());
    waits_.note(op);
    insert(fix_ops_.before(op.seq()));
    recheck_.add_op(fix_ops_.patched(op));
    insert(fix_ops_.after(op.seq()));
    fix_ops_.passed(op.seq());
    applied_seq_ = op.seq();
    applied_any_ = true;
  }
}

void FixVerifier::insert(const std::vector<v1::Op>* ops) {
  if (!ops) return;
  inserting_ = true;
  for (const v1::Op& op : *ops) recheck_.add_op(op);
  inserting_ = false;
}

void FixVerifier::on_order(const v1::Op& op, const hb::OpOrder& order) {
  if (inserting_) return;
  // A pair within one op (graph nodes) has its first side noted first.
  while (!by_first_.empty() && by_first_.begin()->first <= op.seq()) {
    if (by_first_.begin()->first == op.seq())
      for (uint32_t i : by_first_.begin()->second) {
        Pair& p = pairs_[i];
        p.first_epoch =
            p.first_is_completion ? order.epoch : access_order(order, op, p.first.index, p.first.node).epoch;
        p.first_applied = true;
      }
    by_first_.erase(by_first_.begin());
  }
  while (!by_second_.empty() && by_second_.begin()->first <= op.seq()) {
    for (uint32_t i : by_second_.begin()->second) {
      const Pair& p = pairs_[i];
      // An op not applied (seq passed) leaves its pair unordered.
      const bool here = by_second_.begin()->first == op.seq();
      if (!here || !p.first_applied ||
          !access_order(order, op, p.second.index, p.second.node).covers(p.first_epoch, p.first.node))
        unordered_.insert(p.key);
    }
    by_second_.erase(by_second_.begin());
  }
}

void FixVerifier::on_report(const HazardSide& first, const HazardSide& second) {
  if (found_again_.empty() || inserting_) return;
  Hazard h;
  h.first = first;
  h.second = second;
  if (found_again_.count(h.key())) unordered_.insert(h.key());
}

void FixVerifier::finish() {
  // A pair whose second op was never applied is not shown to be ordered.
  for (const auto& [seq, pairs] : by_second_)
    for (uint32_t i : pairs) unordered_.insert(pairs_[i].key);
  by_second_.clear();
}

}  // namespace racetrack::race
