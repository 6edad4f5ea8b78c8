// Values by base address, for the resolver's search of the live region
// around an address (access.h). Sorted entries in short pages: a search is
// two binary searches over contiguous memory, and an insert or erase moves
// at most a page, where a red-black tree chased a pointer (and mispredicted
// a branch) per level on every allocation and free.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace racetrack::race {

template <typename Value>
class AddressIndex {
 public:
  // Sets the value at `base`, replacing any there.
  void assign(uint64_t base, const Value& value) {
    if (pages_.empty()) {
      pages_.emplace_back();
      firsts_.push_back(base);
    }
    const size_t p = page_of(base);
    Page& page = pages_[p];
    auto it = std::lower_bound(page.begin(), page.end(), base, before);
    if (it != page.end() && it->base == base) {
      it->value = value;
      return;
    }
    page.insert(it, Entry{base, value});
    firsts_[p] = page.front().base;
    if (page.size() > kPageEntries) split(p);
  }

  // Erases the value at `base` when `is_it` says it is the one meant.
  template <typename Pred>
  void erase_if(uint64_t base, Pred is_it) {
    if (pages_.empty()) return;
    const size_t p = page_of(base);
    Page& page = pages_[p];
    auto it = std::lower_bound(page.begin(), page.end(), base, before);
    if (it == page.end() || it->base != base || !is_it(it->value)) return;
    page.erase(it);
    if (!page.empty()) {
      firsts_[p] = page.front().base;
    } else if (pages_.size() > 1) {
      pages_.erase(pages_.begin() + static_cast<long>(p));
      firsts_.erase(firsts_.begin() + static_cast<long>(p));
    }
  }

  // The value with the greatest base at most `at`, or null.
  const Value* at_or_before(uint64_t at) const {
    const auto first = std::upper_bound(firsts_.begin(), firsts_.end(), at);
    if (first == firsts_.begin()) return nullptr;
    const Page& page = pages_[static_cast<size_t>(first - firsts_.begin()) - 1];
    const auto it = std::upper_bound(page.begin(), page.end(), at, [](uint64_t a, const Entry& e) {
      return a < e.base;
    });
    return it == page.begin() ? nullptr : &std::prev(it)->value;
  }

  size_t size() const {
    size_t n = 0;
    for (const Page& page : pages_) n += page.size();
    return n;
  }

 private:
  static constexpr size_t kPageEntries = 64;
  struct Entry {
    uint64_t base;
    Value value;
  };
  using Page = std::vector<Entry>;
  static bool before(const Entry& e, uint64_t base) { return e.base < base; }

  // The page `base` belongs in: the last whose first base is at most it,
  // or the first.
  size_t page_of(uint64_t base) const {
    const auto first = std::upper_bound(firsts_.begin(), firsts_.end(), base);
    return first == firsts_.begin() ? 0 : static_cast<size_t>(first - firsts_.begin()) - 1;
  }

  void split(size_t p) {
    Page& page = pages_[p];
    Page upper(page.begin() + static_cast<long>(page.size() / 2), page.end());
    page.resize(page.size() / 2);
    const uint64_t upper_first = upper.front().base;
    pages_.insert(pages_.begin() + static_cast<long>(p + 1), std::move(upper));
    firsts_.insert(firsts_.begin() + static_cast<long>(p + 1), upper_first);
  }

  std::vector<Page> pages_;
  std::vector<uint64_t> firsts_;  // each page's first base; pages are never empty but for a lone one
};

}  // namespace racetrack::race
