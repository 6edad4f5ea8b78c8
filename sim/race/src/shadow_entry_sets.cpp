#include "racetrack/race/shadow_entry_sets.h"

#include <utility>

namespace racetrack::race {

uint32_t ShadowEntrySets::make(ShadowEntries&& entries) {
  if (!free_.empty()) {
    const uint32_t id = free_.back();
    free_.pop_back();
    sets_[id].entries = std::move(entries);
    return id;
  }
  sets_.push_back({std::move(entries), 0});
  return static_cast<uint32_t>(sets_.size() - 1);
}

void ShadowEntrySets::release(uint32_t id) {
  sets_[id].entries.clear();
  free_.push_back(id);
}

}  // namespace racetrack::race
