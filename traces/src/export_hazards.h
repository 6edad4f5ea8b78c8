// The hazards an export shows (docs/export.md, "Hazards"): a slice per
// hazard on the hazard track, spanning its two ops; an instant on each op,
// on the op's own track; a flow between the two ops and one from the hazard
// slice to each. The first pass notes where the ops went, so by the second
// everything is known and the op slices can carry their flow ids.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "export_placement.h"
#include "racetrack/traces/export.h"

namespace racetrack::exporting {

// Flow ids above those of record -> wait pairs (which count from 1).
inline constexpr uint64_t kHazardFlowBase = uint64_t{1} << 62;

struct HazardOp {
  Track track;
  int64_t start_ns = 0, end_ns = 0;
  bool exported = false;
};

struct ShownHazard {
  const ExportHazard* hazard = nullptr;
  HazardOp first, second;
  Track track{TrackKind::kHazards, 0, 0};  // its slice's
  int64_t start_ns = 0, end_ns = 0;
  // Flow ids: between the two ops, and from the hazard slice to each; 0
  // where both sides are one op (two nodes of one graph launch).
  uint64_t pair_flow = 0;
  uint64_t first_flow = 0, second_flow = 0;
};

// What an op's slice gets from the hazards it is in.
struct OpHazardMarks {
  std::vector<uint64_t> flows;
  std::string label;  // "[1] first; [3] second"
};

class HazardLayout {
 public:
  explicit HazardLayout(const std::vector<ExportHazard>& hazards);

  // First pass: every exported op, with its placement.
  void note(uint64_t seq, const Placement& placement);
  // After the first pass: keeps the hazards whose ops were both exported
  // and packs their slices onto the hazard tracks.
  void settle();

  const std::vector<ShownHazard>& shown() const { return shown_; }
  uint64_t left_out() const { return left_out_; }
  uint32_t tracks() const { return tracks_; }  // the hazard lane and its overlap tracks
  const OpHazardMarks* marks(uint64_t seq) const;

 private:
  std::vector<ShownHazard> candidates_;  // one per ExportHazard, in order
  std::unordered_map<uint64_t, std::vector<std::pair<uint32_t, bool>>>
      sides_;  // seq -> (candidate, is first)
  std::vector<ShownHazard> shown_;
  std::unordered_map<uint64_t, OpHazardMarks> marks_;
  uint64_t left_out_ = 0;
  uint32_t tracks_ = 0;
};

}  // namespace racetrack::exporting
