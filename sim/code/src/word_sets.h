// Interned sets of parameter words: each distinct set is stored once and
// named by an id, so abstract register values are small, compare in O(1)
// and join through a memo table.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace racetrack::code {

class WordSets {
 public:
  static constexpr uint32_t kEmpty = 0;
  WordSets() { sets_.emplace_back(); }

  uint32_t single(uint32_t word) { return intern({word}); }
  uint32_t range(uint32_t first, uint32_t last) {
    std::vector<uint32_t> v;
    for (uint32_t w = first; w <= last; ++w) v.push_back(w);
    return intern(std::move(v));
  }
  uint32_t join(uint32_t a, uint32_t b) {
    if (a == b || b == kEmpty) return a;
    if (a == kEmpty) return b;
    if (a > b) std::swap(a, b);
    const uint64_t key = (uint64_t{a} << 32) | b;
    if (auto it = joins_.find(key); it != joins_.end()) return it->second;
    std::vector<uint32_t> merged;
    const auto& x = sets_[a];
    const auto& y = sets_[b];
    merged.reserve(x.size() + y.size());
    size_t i = 0, j = 0;
    while (i < x.size() || j < y.size()) {
      if (j == y.size() || (i < x.size() && x[i] < y[j]))
        merged.push_back(x[i++]);
      else if (i == x.size() || y[j] < x[i])
        merged.push_back(y[j++]);
      else {
        merged.push_back(x[i++]);
        ++j;
      }
    }
    const uint32_t id = intern(std::move(merged));
    joins_.emplace(key, id);
    return id;
  }
  const std::vector<uint32_t>& words(uint32_t id) const { return sets_[id]; }

 private:
  uint32_t intern(std::vector<uint32_t> words) {
    auto [it, added] = ids_.try_emplace(words, static_cast<uint32_t>(sets_.size()));
    if (added) sets_.push_back(std::move(words));
    return it->second;
  }
  std::vector<std::vector<uint32_t>> sets_;
  std::map<std::vector<uint32_t>, uint32_t> ids_;
  std::unordered_map<uint64_t, uint32_t> joins_;
};

}  // namespace racetrack::code
