// Shadow state over byte ranges, one non-overlapping range map per address
// space. Each segment holds the accesses that later accesses must still be
// checked against: an access leaves a segment once a later access to it is
// ordered after it and supersedes it (any write supersedes; a read
// supersedes earlier plain reads). Segments with equal state merge, so after
// ordered writes a buffer is one segment again.
//
// The map is flat (docs/check.md, "Shadow memory"): sorted runs of 24-byte
// segments in pages of at most kPageSegments, found by a binary search over
// the pages' first addresses, each naming its entry set by id. One access
// rewrites each distinct earlier set once, however many segments hold it.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <vector>

#include "racetrack/hb/happens_before.h"
#include "racetrack/race/access.h"
#include "racetrack/race/shadow_entry_sets.h"

namespace racetrack::race {

// An earlier access that conflicts with a new one and is not ordered before
// it, with the bytes of one segment they share.
struct Conflict {
  uint32_t side;
  uint64_t lo, hi;
  bool operator<(const Conflict& o) const { return side < o.side || (side == o.side && lo < o.lo); }
};

class ShadowMemory {
 public:
  static constexpr size_t kPageSegments = 64;

  // Checks an access (`entry`, whose op or graph node has `order`) against
  // the state, appends its conflicts to `conflicts`, and records it.
  void access(SpaceKey space, uint64_t lo, uint64_t hi, const ShadowEntry& entry, const hb::OpOrder& order,
              std::vector<Conflict>& conflicts);

  size_t segment_count() const;
  // Entries still held, counting a shared set once per segment, for tests
  // and memory accounting.
  size_t entry_count() const;
  // Every side index still referenced (to recycle the others).
  void referenced_sides(std::vector<bool>& used) const;

 private:
  struct Segment {
    uint64_t lo, hi;
    uint32_t set;  // in sets_
  };
  using Page = std::vector<Segment>;
  // Where a segment starting at `lo` was, while no segment has moved since
  // (`version`): most accesses cover the segment an earlier one left.
  struct Hint {
    uint64_t lo = 0, version = 0;
    uint32_t page = 0, index = 0;
  };
  struct Space {
    std::vector<uint64_t> firsts;  // each page's first lo
    std::vector<Page> pages;       // never empty pages
    uint64_t version = 1;          // bumped whenever a segment moves
    std::array<Hint, 256> hints{};
  };
  // A segment's place: page and index in it. The end is one past the last
  // page's last segment.
  struct Pos {
    size_t page = 0, index = 0;
  };
  // What one access turns an earlier set into, and which of that set's
  // sides conflict with it (rewrite_sides_[sides_begin, sides_end)).
  struct Rewrite {
    uint32_t from, to;
    uint32_t sides_begin, sides_end;
  };

  Space& space(SpaceKey key);
  // The first segment whose end is past `at`, or the end.
  static Pos find(Space& s, uint64_t at);
  static bool at_end(const Space& s, Pos p) { return p.page >= s.pages.size() || p.index >= s.pages[p.page].size(); }
  static void advance(const Space& s, Pos& p);
  const Rewrite& rewrite(uint32_t set, const ShadowEntry& entry, const hb::OpOrder& order);
  // Appends [lo, hi) with the set `set` becomes, and its conflicts.
  void add_rewritten(uint64_t lo, uint64_t hi, uint32_t set, const ShadowEntry& entry, const hb::OpOrder& order,
                     std::vector<Conflict>& conflicts);
  // The same for a segment inside the range whose set no other segment
  // shares: the set changes in place.
  void rewrite_in_place(const Segment& seg, const ShadowEntry& entry, const hb::OpOrder& order,
                        std::vector<Conflict>& conflicts);
  void append(uint64_t lo, uint64_t hi, uint32_t set);
  static bool survives(const ShadowEntry& earlier, const ShadowEntry& entry, const hb::OpOrder& order,
                       std::vector<uint32_t>& sides);
  // Replaces the `count` segments from `start` (`pos` is the one after them)
  // by replacement_, merging equal neighbours.
  void commit(Space& s, Pos start, Pos pos, size_t count);
  // Replaces `count` segments from `at` by replacement_.
  void splice(Space& s, Pos at, size_t count);
  // Removes `count` segments from `from`, which is not its page's first.
  void remove(Space& s, Pos from, size_t count);
  // Splits an overfull page and folds a small one into its successor.
  static void rebalance(Space& s, size_t page);

  std::map<SpaceKey, Space> spaces_;
  SpaceKey last_space_ = 0;  // a one-entry cache: accesses come in runs per space
  Space* last_ = nullptr;
  ShadowEntrySets sets_;
  // Scratch of one access.
  std::vector<Rewrite> rewrites_;
  std::vector<uint32_t> rewrite_sides_;
  std::vector<Segment> replacement_;
};

}  // namespace racetrack::race
