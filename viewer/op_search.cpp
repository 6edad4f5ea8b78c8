#include "op_search.h"

#include <limits>

namespace racetrack::viewer {

OpSearch::OpSearch(const TraceModel& model, const QString& pattern)
    : model_(model), pattern_(pattern, QRegularExpression::CaseInsensitiveOption) {}

bool OpSearch::matches(const Lane& lane, size_t i) {
  const uint32_t name = lane.name[i];
  if (lane.type == LaneType::kNvtx) {
    if (name >= nvtx_known_.size()) {
      nvtx_known_.resize(name + 1, 0);
      nvtx_hit_.resize(name + 1, 0);
    }
    if (!nvtx_known_[name]) {
      nvtx_known_[name] = 1;
      nvtx_hit_[name] =
          pattern_.match(QString::fromStdString(std::string(model_.nvtx_name(name)))).hasMatch();
    }
    return nvtx_hit_[name];
  }
  const uint32_t bit = 1u << static_cast<int>(lane.category[i]);
  if (name >= known_.size()) {
    known_.resize(name + 1, 0);
    hit_.resize(name + 1, 0);
  }
  if (!(known_[name] & bit)) {
    known_[name] |= bit;
    if (pattern_.match(model_.search_text(lane.category[i], name)).hasMatch()) hit_[name] |= bit;
  }
  return hit_[name] & bit;
}

uint64_t OpSearch::count() {
  if (!valid()) return 0;
  uint64_t n = 0;
  for (const Lane& lane : model_.lanes())
    for (size_t i = 0; i < lane.size(); ++i) n += matches(lane, i);
  return n;
}

std::optional<OpRef> OpSearch::next(int64_t time, uint64_t seq) {
  if (!valid()) return std::nullopt;
  // Per lane, the first match after the point; the earliest of those wins.
  auto after = [&](int64_t t, uint64_t s, bool strictly) -> std::optional<OpRef> {
    std::optional<OpRef> best;
    const auto& lanes = model_.lanes();
    for (uint32_t l = 0; l < lanes.size(); ++l) {
      const Lane& lane = lanes[l];
      for (size_t i = lane.first_starting_at(t); i < lane.size(); ++i) {
        const bool later = lane.start[i] > t || lane.seq[i] > s || (!strictly && lane.seq[i] == s);
        if (!later || !matches(lane, i)) continue;
        const OpRef ref{l, static_cast<uint32_t>(i)};
        if (!best || lane.start[i] < model_.start(*best) ||
            (lane.start[i] == model_.start(*best) && lane.seq[i] < model_.seq(*best)))
          best = ref;
        break;
      }
    }
    return best;
  };
  if (auto found = after(time, seq, true)) return found;
  return after(std::numeric_limits<int64_t>::min(), 0, false);  // wrap around
}

std::optional<OpRef> OpSearch::previous(int64_t time, uint64_t seq) {
  if (!valid()) return std::nullopt;
  auto before = [&](int64_t t, uint64_t s) -> std::optional<OpRef> {
    std::optional<OpRef> best;
    const auto& lanes = model_.lanes();
    for (uint32_t l = 0; l < lanes.size(); ++l) {
      const Lane& lane = lanes[l];
      for (size_t i = std::min(lane.size(), lane.first_starting_at(t) + 1); i-- > 0;) {
        const bool earlier = lane.start[i] < t || (lane.start[i] == t && lane.seq[i] < s);
        if (!earlier || !matches(lane, i)) continue;
        const OpRef ref{l, static_cast<uint32_t>(i)};
        if (!best || lane.start[i] > model_.start(*best) ||
            (lane.start[i] == model_.start(*best) && lane.seq[i] > model_.seq(*best)))
          best = ref;
        break;
      }
    }
    return best;
  };
  if (auto found = before(time, seq)) return found;
  return before(std::numeric_limits<int64_t>::max(), std::numeric_limits<uint64_t>::max());
}

}  // namespace racetrack::viewer
