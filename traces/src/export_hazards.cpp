#include "export_hazards.h"

#include <algorithm>
#include <numeric>

namespace racetrack::exporting {

HazardLayout::HazardLayout(const std::vector<ExportHazard>& hazards) {
  candidates_.resize(hazards.size());
  for (uint32_t i = 0; i < hazards.size(); ++i) {
    candidates_[i].hazard = &hazards[i];
    sides_[hazards[i].first_seq].push_back({i, true});
    sides_[hazards[i].second_seq].push_back({i, false});
  }
}

void HazardLayout::note(uint64_t seq, const Placement& placement) {
  auto it = sides_.find(seq);
  if (it == sides_.end()) return;
  for (const auto& [index, is_first] : it->second) {
    HazardOp& op = is_first ? candidates_[index].first : candidates_[index].second;
    op = {placement.track, placement.start_ns, placement.end_ns, true};
  }
}

void HazardLayout::settle() {
  for (ShownHazard& h : candidates_) {
    if (!h.first.exported || !h.second.exported) {
      ++left_out_;
      continue;
    }
    const uint64_t base = kHazardFlowBase + 3 * shown_.size();
    const bool one_op = h.hazard->first_seq == h.hazard->second_seq;
    h.pair_flow = one_op ? 0 : base;
    h.first_flow = base + 1;
    h.second_flow = one_op ? 0 : base + 2;
    h.start_ns = std::min(h.first.start_ns, h.second.start_ns);
    h.end_ns = std::max(h.first.end_ns, h.second.end_ns);
    shown_.push_back(h);
  }
  // Packed in start order, so that as few tracks as possible are needed.
  std::vector<size_t> order(shown_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return shown_[a].start_ns < shown_[b].start_ns; });
  OverlapPacker packer;
  for (size_t i : order) {
    bool opened = false;
    shown_[i].track.sub = packer.place(shown_[i].start_ns, shown_[i].end_ns, opened);
    tracks_ = std::max(tracks_, shown_[i].track.sub + 1);
  }
  for (const ShownHazard& h : shown_) {
    const std::string number = "[" + std::to_string(h.hazard->number) + "] ";
    for (const bool first : {true, false}) {
      OpHazardMarks& m = marks_[first ? h.hazard->first_seq : h.hazard->second_seq];
      if (h.pair_flow) m.flows.push_back(h.pair_flow);
      if (const uint64_t link = first ? h.first_flow : h.second_flow) m.flows.push_back(link);
      if (!m.label.empty()) m.label += "; ";
      m.label += number + (first ? "first" : "second");
    }
  }
}

const OpHazardMarks* HazardLayout::marks(uint64_t seq) const {
  auto it = marks_.find(seq);
  return it == marks_.end() ? nullptr : &it->second;
}

}  // namespace racetrack::exporting
