// A vector of plain values kept in spill::Storage: small arrays stay in
// memory, large ones in a temporary file whose pages the trimmer returns to
// the page cache, so the per-op arrays of sim, replay and the viewer do not
// hold resident memory in proportion to the trace (docs/sim.md, "Memory"). It has the
// part of std::vector's interface they use, with the same rule that growing
// may move the elements.
#pragma once

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <type_traits>

#include "racetrack/traces/spill_storage.h"

namespace racetrack {

template <typename T>
class SpillArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "SpillArray holds plain values, moved as bytes");

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SpillArray() = default;
  explicit SpillArray(size_t n, const T& value = T{}) { resize(n, value); }
  SpillArray(std::initializer_list<T> values) {
    reserve(values.size());
    for (const T& v : values) push_back(v);
  }
  SpillArray(const SpillArray& other) { *this = other; }
  SpillArray& operator=(const SpillArray& other) {
    if (this == &other) return *this;
    size_ = 0;
    reserve(other.size_);
    if (other.size_) std::memcpy(data(), other.data(), other.size_ * sizeof(T));
    size_ = other.size_;
    return *this;
  }
  SpillArray(SpillArray&& other) noexcept : storage_(std::move(other.storage_)), size_(other.size_) {
    other.size_ = 0;
  }
  SpillArray& operator=(SpillArray&& other) noexcept {
    storage_ = std::move(other.storage_);
    size_ = other.size_;
    other.size_ = 0;
    return *this;
  }

  T* data() { return static_cast<T*>(storage_.data()); }
  const T* data() const { return static_cast<const T*>(storage_.data()); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return storage_.capacity() / sizeof(T); }
  bool spilled() const { return storage_.spilled(); }

  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& at(size_t i) { return data()[checked(i)]; }
  const T& at(size_t i) const { return data()[checked(i)]; }
  T& front() { return data()[0]; }
  const T& front() const { return data()[0]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  std::reverse_iterator<const T*> rbegin() const { return std::reverse_iterator<const T*>(end()); }
  std::reverse_iterator<const T*> rend() const { return std::reverse_iterator<const T*>(begin()); }

  void reserve(size_t n) {
    if (n > capacity()) storage_.grow(n * sizeof(T), size_ * sizeof(T));
  }
  void push_back(const T& value) {
    if (size_ == capacity()) {
      const T copy = value;  // `value` may be one of ours, which growing moves
      grow_for(size_ + 1);
      data()[size_++] = copy;
      return;
    }
    data()[size_++] = value;
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    push_back(T{std::forward<Args>(args)...});
    return back();
  }
  void pop_back() { --size_; }
  void resize(size_t n, const T& value = T{}) {
    if (n > size_) {
      if (n > capacity()) grow_for(n);
      std::fill(data() + size_, data() + n, value);
    }
    size_ = n;
  }
  void assign(size_t n, const T& value) {
    size_ = 0;
    resize(n, value);
  }
  void clear() { size_ = 0; }
  void shrink_to_fit() { storage_.shrink(size_ * sizeof(T)); }

  friend bool operator==(const SpillArray& a, const SpillArray& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  size_t checked(size_t i) const {
    if (i >= size_) throw std::out_of_range("SpillArray::at: index out of range");
    return i;
  }
  void grow_for(size_t n) { reserve(std::max(n, capacity() * 2)); }

  spill::Storage storage_;
  size_t size_ = 0;
};

}  // namespace racetrack
