#include "hold_back.h"

#include <algorithm>
#include <numeric>

#include "racetrack/des/values.h"

namespace racetrack::replay {
namespace {

uint64_t mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The window of a hold-back that must wait at least `shortest`: half as
// long again, so seeded runs differ and a mirrored run flips the order of
// any two ops of the group (or [fixed / 2, fixed] for --stress-ns).
HoldWindow window_from(int64_t shortest, const HoldOptions& o) {
  if (o.fixed_ns > 0) return {shortest, std::min(o.fixed_ns, o.budget_ns)};
  return {shortest, des::add_ns(shortest, shortest / 2)};
}

}  // namespace

HoldPlan HoldPlan::build(const des::Program& p, const std::vector<race::Hazard>& hazards,
                         const std::vector<PairGap>& gaps, const HoldOptions& o) {
  HoldPlan plan;
  plan.seed_ = o.seed;
  const int64_t budget = std::max<int64_t>(o.budget_ns, 2);
  // The longest wait one op may need and still fit the budget alone.
  const int64_t cap = o.fixed_ns > 0 ? std::min(o.fixed_ns, budget) / 2 : budget / 3 * 2;
  std::unordered_map<uint32_t, uint32_t> slot_of;  // op index -> held_
  for (size_t k = 0; k < hazards.size(); ++k) {
    const des::HazardOps pair = des::hazard_ops(p, hazards[k]);
    const uint32_t a = pair.held, b = pair.second;
    auto [it, added] = slot_of.try_emplace(a, static_cast<uint32_t>(plan.held_.size()));
    if (added) plan.held_.push_back({a, 0, false, 0, {}});
    HeldOp& h = plan.held_[it->second];
    const int64_t gap = k < gaps.size() ? gaps[k].ns : 0;
    const int64_t needed =
        o.fixed_ns > 0 ? o.fixed_ns / 2 : des::add_ns(gap, des::add_ns(des::add_ns(gap, gap), o.margin_ns));
    h.needed_ns = std::max(h.needed_ns, needed);
    h.ends.push_back({b, p.ops[b].device ? des::Dep::kDeviceEnd : des::Dep::kHostEnd});
    plan.held_of_.push_back(it->second);
  }
  // Groups: held ops by the wait they need, shortest first, each group as
  // many as fit the budget with the group's longest window.
  std::vector<uint32_t> order(plan.held_.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t x, uint32_t y) { return plan.held_[x].needed_ns < plan.held_[y].needed_ns; });
  size_t in_group = 0;
  for (uint32_t x : order) {
    HeldOp& h = plan.held_[x];
    h.capped = h.needed_ns > cap;
    const int64_t shortest = std::max<int64_t>(1, std::min(h.needed_ns, cap));
    if (!plan.windows_.empty()) {
      const HoldWindow grown = window_from(std::max(plan.windows_.back().shortest_ns, shortest), o);
      if (static_cast<double>(in_group + 1) * static_cast<double>(grown.longest_ns) <=
          static_cast<double>(budget)) {
        plan.windows_.back() = grown;
        h.group = plan.groups() - 1;
        ++in_group;
        continue;
      }
    }
    plan.windows_.push_back(window_from(shortest, o));
    h.group = plan.groups() - 1;
    in_group = 1;
  }
  for (const HeldOp& h : plan.held_) plan.seqs_.push_back(p.ops[h.op].seq);
  return plan;
}

std::unordered_map<uint32_t, int64_t> HoldPlan::delays(uint32_t run) const {
  std::unordered_map<uint32_t, int64_t> out;
  if (windows_.empty()) return out;
  const uint32_t group = run % groups(), turn = run / groups();
  const HoldWindow& w = windows_[group];
  const uint64_t span = static_cast<uint64_t>(w.longest_ns - w.shortest_ns) + 1;
  for (size_t i = 0; i < held_.size(); ++i) {
    if (held_[i].group != group) continue;
    const uint64_t r = mix(seed_ * 1000003 + (turn / 2) * 7919 + seqs_[i]);
    const int64_t d = w.shortest_ns + static_cast<int64_t>(r % span);
    out[held_[i].op] = turn % 2 ? w.shortest_ns + w.longest_ns - d : d;
  }
  return out;
}

std::unordered_map<uint32_t, std::vector<des::Dep>> HoldPlan::releases(uint32_t run) const {
  std::unordered_map<uint32_t, std::vector<des::Dep>> out;
  if (windows_.empty()) return out;
  for (const HeldOp& h : held_)
    if (h.group == run % groups()) out[h.op] = h.ends;
  return out;
}

uint32_t HoldPlan::runs_holding(uint32_t group, uint32_t runs) const {
  if (windows_.empty()) return 0;
  return runs / groups() + (group < runs % groups() ? 1 : 0);
}

}  // namespace racetrack::replay
