// The accesses of copies and memsets: exact byte ranges, one per row of a
// 2D / 3D pitched shape (traces extents.h), so two copies that interleave
// rows inside one hull do not conflict (docs/check.md, "Strided copies").
#include "racetrack/race/access.h"
#include "racetrack/traces/extents.h"

namespace racetrack::race {
namespace {

// Above this many rows a side is one hull access of block precision: the
// checker stays linear in the trace, and hazards found through the hull are
// "likely", not "definite", since the rows may miss the other access.
constexpr uint64_t kMaxRowsPerSide = 4096;

void add_side(const SideExtents& side, ResolvedAccess access, const AccessResolver& resolver,
              std::vector<ResolvedAccess>& out) {
  auto push = [&](ByteRange range) {
    // A range that wraps the address space (only in a trace `racetrack
    // validate` rejects) is no range.
    if (range.hi <= range.lo) return;
    access.lo = range.lo;
    access.hi = range.hi;
    access.region = resolver.find_region(access.space, access.lo, access.hi);
    out.push_back(access);
  };
  if (side.count() > kMaxRowsPerSide) {
    access.precision = v1::PRECISION_BLOCK;
    push(side.hull());
    return;
  }
  for (uint64_t i = 0; i < side.count(); ++i) push(side.run(i));
}

}  // namespace

void AccessResolver::add_copy(const v1::Memcpy& c, uint32_t node, std::vector<ResolvedAccess>& out) const {
  if (c.bytes() == 0) return;
  ResolvedAccess src;
  src.space = space_key(c.src_space(), c.src_device());
  src.reads = true;
  src.index = 0;
  src.node = node;
  ResolvedAccess dst = src;
  dst.space = space_key(c.dst_space(), c.dst_device());
  dst.reads = false;
  dst.writes = true;
  dst.index = 1;
  add_side(src_extents(c), src, *this, out);
  add_side(dst_extents(c), dst, *this, out);
}

void AccessResolver::add_memset(const v1::Memset& m, SpaceKey space, uint32_t node,
                                std::vector<ResolvedAccess>& out) const {
  if (m.bytes() == 0) return;
  ResolvedAccess r;
  r.space = space_key(m.space(), 0) == kHostSpace ? kHostSpace : space;
  r.writes = true;
  r.node = node;
  add_side(memset_extents(m), r, *this, out);
}

}  // namespace racetrack::race
