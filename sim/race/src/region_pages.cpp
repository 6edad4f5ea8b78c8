#include "racetrack/race/region_pages.h"

namespace racetrack::race {

void RegionPages::add(uint32_t id, const RegionInfo& info) {
  const size_t page = id >> kPageBits;
  if (page >= pages_.size()) pages_.resize(page + 1);
  if (!pages_[page]) pages_[page] = std::make_unique<Page>();
  Page& p = *pages_[page];
  const size_t slot = id & (kPageSize - 1);
  if (p.present[slot]) return;
  p.infos[slot] = info;
  p.present[slot] = true;
  ++p.count;
}

void RegionPages::erase(uint32_t id) {
  const size_t page = id >> kPageBits;
  if (page >= pages_.size() || !pages_[page]) return;
  Page& p = *pages_[page];
  const size_t slot = id & (kPageSize - 1);
  if (!p.present[slot]) return;
  p.present[slot] = false;
  if (--p.count == 0) pages_[page].reset();
}

}  // namespace racetrack::race
