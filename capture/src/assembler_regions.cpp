#include "assembler_regions.h"

namespace racetrack::capture {

LiveRegion RegionTable::add(v1::AddressSpace space, uint64_t base, uint64_t size, uint32_t device,
                            v1::RegionOrigin origin, uint64_t alloc_seq, uint32_t label) {
  v1::Region& r = *out_.pending().add_regions();
  r.set_id(++count_);
  r.set_space(space);
  r.set_base(base);
  r.set_size(size);
  r.set_device(device);
  r.set_origin(origin);
  r.set_label(label);
  // The Alloc op may land in the next chunk: the region says where it is.
  r.set_alloc_seq(alloc_seq);
  LiveRegion live{count_, base, size, space, origin, device, out_.generation()};
  map_for(origin)[base] = live;  // a base reused without a seen free replaces the old range
  return live;
}

RegionTable::Map& RegionTable::map_for(v1::RegionOrigin origin) {
  if (origin == v1::ORIGIN_ANNOTATION) return annotations_;
  if (origin == v1::ORIGIN_FRAMEWORK_BLOCK) return blocks_;
  return allocations_;
}

std::optional<LiveRegion> RegionTable::remove_block(uint64_t base, uint64_t bytes) {
  auto it = blocks_.find(base);
  if (it == blocks_.end() || it->second.size != bytes) return std::nullopt;
  LiveRegion region = it->second;
  blocks_.erase(it);
  return region;
}

std::optional<LiveRegion> RegionTable::remove_at(uint64_t base) {
  auto it = allocations_.find(base);
  if (it == allocations_.end()) return std::nullopt;
  LiveRegion region = it->second;
  allocations_.erase(it);
  return region;
}

std::vector<LiveRegion> RegionTable::remove_inside(uint64_t lo, uint64_t bytes, v1::RegionOrigin origin) {
  std::vector<LiveRegion> removed;
  for (auto it = allocations_.lower_bound(lo); it != allocations_.end() && it->first - lo < bytes;) {
    const LiveRegion& r = it->second;
    if (r.origin == origin && r.size <= bytes - (r.base - lo)) {
      removed.push_back(r);
      it = allocations_.erase(it);
    } else {
      ++it;
    }
  }
  return removed;
}

const LiveRegion* RegionTable::find_in(const Map& map, uint64_t lo, uint64_t bytes) {
  auto it = map.upper_bound(lo);
  if (it == map.begin()) return nullptr;
  --it;
  return it->second.contains(lo, bytes) ? &it->second : nullptr;
}

const LiveRegion* RegionTable::containing(uint64_t lo, uint64_t bytes) const {
  for (const Map* map : {&annotations_, &blocks_, &allocations_})
    if (const LiveRegion* r = find_in(*map, lo, bytes)) return r;
  return nullptr;
}

const LiveRegion* RegionTable::exactly(uint64_t base, uint64_t bytes) const {
  for (const Map* map : {&annotations_, &blocks_, &allocations_}) {
    auto it = map->find(base);
    if (it != map->end() && it->second.size == bytes) return &it->second;
  }
  return nullptr;
}

bool RegionTable::label_if_pending(const LiveRegion& region, uint32_t label) {
  if (region.generation != out_.generation()) return false;
  for (v1::Region& r : *out_.pending().mutable_regions())
    if (r.id() == region.id) {
      r.set_label(label);
      return true;
    }
  return false;
}

}  // namespace racetrack::capture
