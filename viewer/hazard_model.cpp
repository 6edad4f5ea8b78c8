#include "hazard_model.h"

#include "racetrack/traces/timeline.h"

namespace racetrack::viewer {

HazardModel::HazardModel(race::CheckResult result, std::shared_ptr<const TraceModel> model)
    : result_(std::move(result)), model_(std::move(model)) {
  // The trace model's tables name the same ids; a second copy of every
  // region would only cost memory.
  result_.tables.reset();
  by_group_.resize(result_.groups.size());
  auto add = [&](const race::Hazard& h) {
    const uint32_t group = h.group < by_group_.size() ? h.group : 0;
    by_group_[group].push_back(static_cast<uint32_t>(instances_.size()));
    instances_.push_back({h, group, model_->find(h.first.seq), model_->find(h.second.seq)});
  };
  for (const race::Hazard& h : result_.shown) add(h);
  for (const race::HazardGroup& g : result_.groups)
    if (!g.shown) add(g.first);
}

QString HazardModel::side_place(const race::HazardSide& side) const {
  const TraceTables& t = model_->tables();
  return QString::fromStdString(side.stream ? stream_lane_name(t, side.stream)
                                            : thread_lane_name(t, side.thread));
}

QString HazardModel::streams(const race::Hazard& h) const {
  return side_place(h.first) + QStringLiteral(" \u2192 ") + side_place(h.second);
}

}  // namespace racetrack::viewer
