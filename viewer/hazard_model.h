// The check's findings, tied to the timeline: every listed hazard instance
// with the boxes of its two ops, grouped as `racetrack check` groups them.
#pragma once

#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "racetrack/race/checker.h"
#include "trace_model.h"

namespace racetrack::viewer {

struct HazardInstance {
  race::Hazard hazard;
  uint32_t group = 0;  // index in result().groups
  std::optional<OpRef> first, second;
};

class HazardModel {
 public:
  // `model` must be the same trace the result was checked from.
  HazardModel(race::CheckResult result, std::shared_ptr<const TraceModel> model);

  const race::CheckResult& result() const { return result_; }
  // Every shown hazard, and the first occurrence of each group below the
  // check's confidence threshold (those are counted, not kept).
  const std::vector<HazardInstance>& instances() const { return instances_; }
  // Instance indices of each group, in seq order.
  const std::vector<std::vector<uint32_t>>& by_group() const { return by_group_; }
  // "offload (d2h) -> compute": the streams (or host threads) of both sides.
  QString streams(const race::Hazard& h) const;
  QString side_place(const race::HazardSide& side) const;

 private:
  race::CheckResult result_;
  std::shared_ptr<const TraceModel> model_;
  std::vector<HazardInstance> instances_;
  std::vector<std::vector<uint32_t>> by_group_;
};

}  // namespace racetrack::viewer
