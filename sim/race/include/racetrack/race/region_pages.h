// The resolver's regions by id, in pages of consecutive ids: a lookup is two
// indexings instead of a hash search (the checker makes one per alloc, free
// and recorded access), and a page is released once every region in it is
// gone, so memory follows the live regions, not every region ever defined.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "racetrack.pb.h"

namespace racetrack::race {

using SpaceKey = uint32_t;  // an address space (access.h)

struct RegionInfo {
  uint64_t base = 0, size = 0;
  SpaceKey space = 0;
  v1::RegionOrigin origin = v1::ORIGIN_UNKNOWN;
  v1::AddressSpace address_space = v1::SPACE_DEVICE;
  uint32_t label = 0;
  uint32_t live_order = 0;  // its place among regions made live, from 1 (access.h)
  bool live = false;
  uint64_t alloc_seq = 0;  // the seq of its ALLOC op; 0: live from the start
};

class RegionPages {
 public:
  // Null when `id` was never added or has been erased. Pointers stay valid
  // until their region is erased.
  const RegionInfo* find(uint32_t id) const {
    const size_t page = id >> kPageBits;
    if (page >= pages_.size() || !pages_[page]) return nullptr;
    const Page& p = *pages_[page];
    const size_t slot = id & (kPageSize - 1);
    return p.present[slot] ? &p.infos[slot] : nullptr;
  }
  RegionInfo* find(uint32_t id) { return const_cast<RegionInfo*>(std::as_const(*this).find(id)); }
  // Adds `id` (not present).
  void add(uint32_t id, const RegionInfo& info);
  void erase(uint32_t id);

 private:
  static constexpr uint32_t kPageBits = 10;
  static constexpr size_t kPageSize = size_t{1} << kPageBits;
  struct Page {
    std::array<RegionInfo, kPageSize> infos;
    std::bitset<kPageSize> present;
    size_t count = 0;
  };
  std::vector<std::unique_ptr<Page>> pages_;  // by id >> kPageBits; null: none present
};

}  // namespace racetrack::race
