#include "racetrack/race/shadow_memory.h"

#include <algorithm>
#include <iterator>

#include "address_slot.h"

namespace racetrack::race {
namespace {

// Rewrites looked back on per segment: one access meets few distinct sets,
// and a whole-segment access over thousands of them must stay linear.
constexpr size_t kRewriteMemo = 8;

// How many of the sorted `n` values key(x) are at most `at`, without
// branches to mispredict: the searches run once per access.
template <typename T, typename Key>
size_t count_not_above(const T* first, size_t n, uint64_t at, Key key) {
  const T* base = first;
  while (n > 1) {
    const size_t half = n / 2;
    base = key(base[half - 1]) <= at ? base + half : base;
    n -= half;
  }
  return static_cast<size_t>(base - first) + (n == 1 && key(*base) <= at);
}

}  // namespace

ShadowMemory::Space& ShadowMemory::space(SpaceKey key) {
  if (!last_ || last_space_ != key) {
    last_ = &spaces_[key];  // std::map nodes stay put
    last_space_ = key;
  }
  return *last_;
}

ShadowMemory::Pos ShadowMemory::find(Space& s, uint64_t at) {
  if (s.pages.empty()) return {};
  Hint& hint = s.hints[address_slot(at, 0, s.hints.size())];
  // Overwrites in place keep the version: the segment there must still start at `at`.
  if (hint.version == s.version && hint.lo == at && hint.page < s.pages.size() &&
      hint.index < s.pages[hint.page].size() && s.pages[hint.page][hint.index].lo == at)
    return {hint.page, hint.index};
  const size_t pages = count_not_above(s.firsts.data(), s.firsts.size(), at, [](uint64_t v) { return v; });
  Pos p{pages ? pages - 1 : 0, 0};
  const Page& segs = s.pages[p.page];
  p.index = count_not_above(segs.data(), segs.size(), at, [](const Segment& seg) { return seg.hi; });
  if (p.index < segs.size() && segs[p.index].lo == at)
    hint = {at, s.version, static_cast<uint32_t>(p.page), static_cast<uint32_t>(p.index)};
  if (p.index == segs.size() && p.page + 1 < s.pages.size()) p = {p.page + 1, 0};
  return p;
}

void ShadowMemory::advance(const Space& s, Pos& p) {
  if (++p.index == s.pages[p.page].size() && p.page + 1 < s.pages.size()) p = {p.page + 1, 0};
}

// Whether `earlier` stays beside `entry`, noting its side in `sides` when
// the two conflict: unordered, different sides, and one of them writes.
bool ShadowMemory::survives(const ShadowEntry& earlier, const ShadowEntry& entry, const hb::OpOrder& order,
                            std::vector<uint32_t>& sides) {
  const bool ordered = order.covers(earlier.epoch(), earlier.node);
  // The same access seen again (another row of one side) is no conflict.
  if (earlier.side != entry.side && (earlier.writes || entry.writes) && !ordered) sides.push_back(earlier.side);
  // Dropped when this access supersedes it: ordered before it, and
  // overwritten (a write) or re-read (a plain read after a plain read).
  return !ordered || !(entry.writes || !earlier.writes);
}

const ShadowMemory::Rewrite& ShadowMemory::rewrite(uint32_t set, const ShadowEntry& entry,
                                                   const hb::OpOrder& order) {
  const size_t from = rewrites_.size() > kRewriteMemo ? rewrites_.size() - kRewriteMemo : 0;
  for (size_t k = rewrites_.size(); k-- > from;)
    if (rewrites_[k].from == set) return rewrites_[k];

  Rewrite r{set, 0, static_cast<uint32_t>(rewrite_sides_.size()), 0};
  ShadowEntries next;
  for (const ShadowEntry& earlier : sets_.entries(set))
    if (survives(earlier, entry, order, rewrite_sides_)) next.push_back(earlier);
  next.push_back(entry);
  r.sides_end = static_cast<uint32_t>(rewrite_sides_.size());
  r.to = sets_.make(std::move(next));
  rewrites_.push_back(r);
  return rewrites_.back();
}

void ShadowMemory::append(uint64_t lo, uint64_t hi, uint32_t set) {
  sets_.ref(set);
  replacement_.push_back({lo, hi, set});
}

void ShadowMemory::add_rewritten(uint64_t lo, uint64_t hi, uint32_t set, const ShadowEntry& entry,
                                 const hb::OpOrder& order, std::vector<Conflict>& conflicts) {
  const Rewrite& r = rewrite(set, entry, order);
  for (uint32_t k = r.sides_begin; k < r.sides_end; ++k) conflicts.push_back({rewrite_sides_[k], lo, hi});
  append(lo, hi, r.to);
}

void ShadowMemory::rewrite_in_place(const Segment& seg, const ShadowEntry& entry, const hb::OpOrder& order,
                                    std::vector<Conflict>& conflicts) {
  const size_t noted = rewrite_sides_.size();
  ShadowEntries& entries = sets_.mutable_entries(seg.set);
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [&](const ShadowEntry& e) { return !survives(e, entry, order, rewrite_sides_); }),
                entries.end());
  entries.push_back(entry);
  for (size_t k = noted; k < rewrite_sides_.size(); ++k) conflicts.push_back({rewrite_sides_[k], seg.lo, seg.hi});
  rewrite_sides_.resize(noted);
  append(seg.lo, seg.hi, seg.set);
}

void ShadowMemory::access(SpaceKey key, uint64_t lo, uint64_t hi, const ShadowEntry& entry,
                          const hb::OpOrder& order, std::vector<Conflict>& conflicts) {
  if (lo >= hi) return;
  Space& s = space(key);
  rewrites_.clear();
  rewrite_sides_.clear();
  replacement_.clear();

  Pos start = find(s, lo), pos = start;
  // The segments [lo, hi) overlaps become: their parts outside it as they
  // were, their parts inside it and the gaps between them rewritten.
  size_t count = 0;
  uint64_t cursor = lo;
  for (; !at_end(s, pos); advance(s, pos), ++count) {
    const Segment seg = s.pages[pos.page][pos.index];
    if (seg.lo >= hi) break;
    if (seg.lo < lo) append(seg.lo, lo, seg.set);
    if (seg.lo > cursor) add_rewritten(cursor, seg.lo, ShadowEntrySets::kEmpty, entry, order, conflicts);
    cursor = std::min(seg.hi, hi);
    if (seg.lo >= lo && seg.hi <= hi && !sets_.shared(seg.set))
      rewrite_in_place(seg, entry, order, conflicts);  // the usual case: no copy
    else
      add_rewritten(std::max(seg.lo, lo), cursor, seg.set, entry, order, conflicts);
    if (seg.hi > hi) append(hi, seg.hi, seg.set);
  }
  if (cursor < hi) add_rewritten(cursor, hi, ShadowEntrySets::kEmpty, entry, order, conflicts);
  commit(s, start, pos, count);
}

void ShadowMemory::commit(Space& s, Pos start, Pos pos, size_t count) {
  // Equal neighbours merge, those just outside the range included.
  if (start.index > 0 || start.page > 0) {
    const Pos before = start.index > 0 ? Pos{start.page, start.index - 1}
                                       : Pos{start.page - 1, s.pages[start.page - 1].size() - 1};
    const Segment& left = s.pages[before.page][before.index];
    if (left.hi == replacement_.front().lo && sets_.same(left.set, replacement_.front().set)) {
      sets_.ref(left.set);
      replacement_.insert(replacement_.begin(), left);
      start = before;
      ++count;
    }
  }
  if (!at_end(s, pos)) {
    const Segment& right = s.pages[pos.page][pos.index];
    if (right.lo == replacement_.back().hi && sets_.same(right.set, replacement_.back().set)) {
      append(right.lo, right.hi, right.set);
      ++count;
    }
  }
  size_t kept = 0;
  for (size_t k = 1; k < replacement_.size(); ++k) {
    Segment& last = replacement_[kept];
    const Segment& next = replacement_[k];
    if (last.hi == next.lo && sets_.same(last.set, next.set)) {
      last.hi = next.hi;
      sets_.unref(next.set);
    } else {
      replacement_[++kept] = next;
    }
  }
  replacement_.resize(kept + 1);
  splice(s, start, count);
}

void ShadowMemory::splice(Space& s, Pos at, size_t count) {
  if (s.pages.empty()) {
    s.pages.emplace_back();
    s.firsts.push_back(0);
    at = {};
  }
  // Overwrite in place as far as both go: an access that rewrites the
  // segments it covers (the usual case) moves nothing.
  size_t k = 0;
  Pos p = at;
  for (; k < replacement_.size() && count > 0; ++k, --count) {
    if (p.index == s.pages[p.page].size()) p = {p.page + 1, 0};
    Segment& old = s.pages[p.page][p.index++];
    sets_.unref(old.set);
    old = replacement_[k];
  }
  if (k < replacement_.size() || count > 0) ++s.version;  // segments move
  if (k < replacement_.size()) {
    Page& target = s.pages[p.page];
    target.insert(target.begin() + static_cast<long>(p.index), replacement_.begin() + static_cast<long>(k),
                  replacement_.end());
  } else if (count > 0) {
    remove(s, p, count);
  }
  for (size_t page = at.page; page <= p.page; ++page) s.firsts[page] = s.pages[page].front().lo;
  rebalance(s, p.page);
}

void ShadowMemory::remove(Space& s, Pos from, size_t count) {
  // The segments may run over several pages; `from`'s page keeps those
  // before it (at least one).
  size_t page = from.page;
  for (size_t index = from.index; count > 0; ++page, index = 0) {
    Page& segs = s.pages[page];
    const size_t n = std::min(count, segs.size() - index);
    for (size_t k = index; k < index + n; ++k) sets_.unref(segs[k].set);
    segs.erase(segs.begin() + static_cast<long>(index), segs.begin() + static_cast<long>(index + n));
    count -= n;
  }
  const auto first_empty = static_cast<long>(from.page + 1);
  size_t end = from.page + 1;
  while (end < s.pages.size() && s.pages[end].empty()) ++end;
  s.pages.erase(s.pages.begin() + first_empty, s.pages.begin() + static_cast<long>(end));
  s.firsts.erase(s.firsts.begin() + first_empty, s.firsts.begin() + static_cast<long>(end));
  // The removal may have cut the head of the next page.
  if (from.page + 1 < s.pages.size()) s.firsts[from.page + 1] = s.pages[from.page + 1].front().lo;
}

void ShadowMemory::rebalance(Space& s, size_t page) {
  Page& segs = s.pages[page];
  if (segs.size() > kPageSegments) {
    ++s.version;
    // Cut into half-full pages, so the next inserts do not split again.
    std::vector<Page> parts;
    for (size_t k = 0; k < segs.size(); k += kPageSegments / 2) {
      const size_t end = std::min(segs.size(), k + kPageSegments / 2);
      parts.emplace_back(segs.begin() + static_cast<long>(k), segs.begin() + static_cast<long>(end));
    }
    s.pages.erase(s.pages.begin() + static_cast<long>(page));
    s.pages.insert(s.pages.begin() + static_cast<long>(page), std::make_move_iterator(parts.begin()),
                   std::make_move_iterator(parts.end()));
    s.firsts.insert(s.firsts.begin() + static_cast<long>(page), parts.size() - 1, 0);
    for (size_t k = 0; k < parts.size(); ++k) s.firsts[page + k] = s.pages[page + k].front().lo;
    return;
  }
  if (page + 1 < s.pages.size() && segs.size() + s.pages[page + 1].size() <= kPageSegments / 2) {
    ++s.version;
    Page& next = s.pages[page + 1];
    next.insert(next.begin(), segs.begin(), segs.end());
    s.pages.erase(s.pages.begin() + static_cast<long>(page));
    s.firsts.erase(s.firsts.begin() + static_cast<long>(page));
  }
  s.firsts[page] = s.pages[page].front().lo;
}

size_t ShadowMemory::segment_count() const {
  size_t n = 0;
  for (const auto& [key, s] : spaces_)
    for (const Page& segs : s.pages) n += segs.size();
  return n;
}

size_t ShadowMemory::entry_count() const {
  size_t n = 0;
  for (const auto& [key, s] : spaces_)
    for (const Page& segs : s.pages)
      for (const Segment& seg : segs) n += sets_.entries(seg.set).size();
  return n;
}

void ShadowMemory::referenced_sides(std::vector<bool>& used) const {
  sets_.for_each_live([&](const ShadowEntries& entries) {
    for (const ShadowEntry& e : entries) {
      if (used.size() <= e.side) used.resize(e.side + 1, false);
      used[e.side] = true;
    }
  });
}

}  // namespace racetrack::race
