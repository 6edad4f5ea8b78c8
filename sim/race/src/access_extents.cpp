// Extents from pointers: where the argument words of a kernel without
// recorded accesses point, and the block inferred around each pointer inside
// a driver allocation (docs/check.md, "Extents from pointers").
#include "racetrack/race/access.h"

#include "address_slot.h"

namespace racetrack::race {

// Finds each word's region once, and makes every pointer into a driver
// allocation a boundary of its inferred blocks before any block of this
// kernel is cut, so two pointers of one launch split the allocation between
// them.
void AccessResolver::locate_words(const v1::Kernel& k, SpaceKey space) {
  located_.resize(static_cast<size_t>(k.arg_words_size()));
  for (int i = 0; i < k.arg_words_size(); ++i) {
    const uint64_t word = k.arg_words(i);
    Located& at = located_[static_cast<size_t>(i)];
    at = Located{space, 0, nullptr, {}};
    if (word < lowest_ || word >= highest_) continue;
    WordLookup& seen = word_lookups_[address_slot(word, space, word_lookups_.size())];
    if (seen.version == live_version_ && seen.word == word && seen.space == space) {
      at = seen.at;
    } else {
      Live live = find_live(space, word, word + 1);
      if (!live.id) live = find_live(at.space = kHostSpace, word, word + 1);
      at.region = live.id;
      at.info = live.info;
      seen = {word, live_version_, space, at};
    }
    if (!at.region) continue;
    if (infer_blocks_ && tier_of(at.info->origin) == kSegment) at.mark = blocks_.add_pointer(at.region, word);
  }
}

// The ends of exact ranges (copies, memsets, recorded accesses) inside a
// driver allocation are boundaries too.
void AccessResolver::note_exact_ranges(const std::vector<ResolvedAccess>& accesses) {
  if (!infer_blocks_) return;
  for (const ResolvedAccess& a : accesses) {
    if (a.precision != v1::PRECISION_EXACT || !a.region) continue;
    const RegionInfo* info = region(a.region);
    if (!info || tier_of(info->origin) != kSegment) continue;
    blocks_.add_range(a.region, a.lo, a.hi);
  }
}

// The extent a pointer into live region `id` stands for: the region itself
// when it is an annotation or allocator block (or inference is off), else
// the inferred block from the pointer to the next boundary.
ResolvedAccess AccessResolver::word_extent(const Located& at, uint64_t word) const {
  const RegionInfo& info = *at.info;
  ResolvedAccess r;
  r.space = at.space;
  r.region = at.region;
  r.has_anchor = true;
  r.anchor_lo = r.anchor_hi = word;
  r.lo = info.base;
  r.hi = info.base + info.size;
  if (tier_of(info.origin) != kSegment) {
    r.precision = v1::PRECISION_BLOCK;
  } else if (!at.mark.partition) {
    r.precision = v1::PRECISION_SEGMENT;
  } else {
    r.precision = v1::PRECISION_INFERRED;
    const InferredBlocks::Block block = blocks_.block(at.mark, r.hi);
    r.lo = word;
    r.hi = block.end;
    r.first_seam = block.first_seam;
  }
  return r;
}

}  // namespace racetrack::race
