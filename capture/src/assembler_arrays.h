// CUDA arrays for the trace assembler. An array has no linear address the
// checker could compare, so each one gets a range of its own, above every
// address a process can hold, with its elements in row-major order: two
// copies touch the same bytes there exactly when they touch the same
// elements of the array (docs/capture.md "CUDA arrays"). Copies that name an
// array position are rewritten into that range before they become ops.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "api_event.h"

namespace racetrack::capture {

struct ArrayLayout {
  uint64_t base = 0;          // the first byte of its range
  uint64_t row_bytes = 0;     // width * element size
  uint64_t height = 1;        // rows per slice
  uint64_t bytes = 0;         // the whole array
  uint64_t element_size = 0;  // bytes per element
};

class ArrayTable {
 public:
  // Where arrays' ranges start: above the 57-bit address space of any x86
  // or Arm process, below 2^63.
  static constexpr uint64_t kRangeBase = 0x7A00'0000'0000'0000;

  // The range of a new array from its shape (copy_shape_words.h
  // ArrayShapeWord); nullopt when the shape is unknown or empty.
  std::optional<ArrayLayout> create(uint64_t handle, std::span<const uint64_t> shape);
  // The destroyed array's layout, no longer live.
  std::optional<ArrayLayout> destroy(uint64_t handle);

  // A copy with array sides (kFlagArraySides): each array side's handle and
  // position become an address in the array's range and the pitched words
  // get the array's pitches; a side naming an array this capture did not
  // see becomes unknown (kFlagDstUnknown / kFlagSrcUnknown, address 0).
  // The array words are removed from `words`.
  void resolve(ApiEvent& event, std::vector<uint64_t>& words) const;

 private:
  std::unordered_map<uint64_t, ArrayLayout> live_;
  uint64_t next_ = kRangeBase;
};

}  // namespace racetrack::capture
