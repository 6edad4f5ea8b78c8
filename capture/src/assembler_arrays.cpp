#include "assembler_arrays.h"

#include <algorithm>

#include "copy_shape_words.h"

namespace racetrack::capture {
namespace {

constexpr uint64_t kRangeAlignment = uint64_t{1} << 21;

uint64_t at_least_one(uint64_t n) {
  return n == 0 ? 1 : n;
}

}  // namespace

std::optional<ArrayLayout> ArrayTable::create(uint64_t handle, std::span<const uint64_t> shape) {
  if (handle == 0 || shape.size() < kArrayShapeWords) return std::nullopt;
  const uint64_t element = shape[kArrayElementSize], width = shape[kArrayWidth];
  const uint64_t height = at_least_one(shape[kArrayHeight]), depth = at_least_one(shape[kArrayDepth]);
  if (element == 0 || width == 0) return std::nullopt;
  uint64_t total = 0;
  if (__builtin_mul_overflow(width, element, &total) || __builtin_mul_overflow(total, height, &total) ||
      __builtin_mul_overflow(total, depth, &total) || total > (uint64_t{1} << 48))
    return std::nullopt;  // not a shape any device holds
  ArrayLayout layout{next_, width * element, height, total, element};
  next_ += (layout.bytes + kRangeAlignment - 1) / kRangeAlignment * kRangeAlignment;
  live_[handle] = layout;
  return layout;
}

std::optional<ArrayLayout> ArrayTable::destroy(uint64_t handle) {
  auto it = live_.find(handle);
  if (it == live_.end()) return std::nullopt;
  ArrayLayout layout = it->second;
  live_.erase(it);
  return layout;
}

void ArrayTable::resolve(ApiEvent& event, std::vector<uint64_t>& words) const {
  if (!(event.flags & kFlagArraySides)) return;
  event.flags &= static_cast<uint16_t>(~kFlagArraySides);
  const bool pitched = event.flags & kFlagPitched;
  const size_t at = pitched ? size_t{kPitchedWords} : 0;
  if (words.size() < at + kArrayWords) {  // no positions: neither side can be placed
    event.dst = event.src = 0;
    event.flags |= kFlagDstUnknown | kFlagSrcUnknown;
    words.resize(std::min(words.size(), at));
    return;
  }
  const uint64_t* position = words.data() + at;
  const uint64_t bits = position[kArrayBits];
  auto find = [&](uint64_t handle) -> const ArrayLayout* {
    auto it = live_.find(handle);
    return it == live_.end() ? nullptr : &it->second;
  };
  const ArrayLayout* dst = (bits & kDstIsArray) ? find(event.dst) : nullptr;
  const ArrayLayout* src = (bits & kSrcIsArray) ? find(event.src) : nullptr;
  // cudaMemcpy3D counts the extent and array positions in the array's
  // elements when an array takes part; cudaMemcpy3DBatchAsync the pointers'
  // pitches too.
  const ArrayLayout* sized = dst ? dst : src;
  const uint64_t element = (bits & kInElements) && sized ? sized->element_size : 1;
  if (pitched) words[kWidth] *= element;
  const uint64_t width = pitched ? words[kWidth] : 0;
  auto place = [&](bool is_array, const ArrayLayout* layout, const uint64_t* xyz, uint64_t& address,
                   uint32_t pitch_word, uint32_t slice_word, uint16_t unknown_flag) {
    if (!is_array) {
      if (pitched && (bits & kPitchesInElements)) words[pitch_word] *= element, words[slice_word] *= element;
      return;
    }
    if (layout == nullptr) {
      address = 0;
      event.flags |= unknown_flag;
      if (pitched) words[pitch_word] = width, words[slice_word] = 0;  // a valid shape that touches nothing
      return;
    }
    const uint64_t slice = layout->row_bytes * layout->height;
    address = layout->base + xyz[2] * slice + xyz[1] * layout->row_bytes + xyz[0] * element;
    if (pitched) {  // CUDA refuses rows wider than the array's; keep the shape valid regardless
      words[pitch_word] = std::max(layout->row_bytes, width);
      words[slice_word] = std::max(slice, words[pitch_word] * words[kHeight]);
    }
  };
  const uint64_t dst_xyz[3] = {position[kDstX], position[kDstY], position[kDstZ]};
  const uint64_t src_xyz[3] = {position[kSrcX], position[kSrcY], position[kSrcZ]};
  place(bits & kDstIsArray, dst, dst_xyz, event.dst, kDstPitch, kDstSlicePitch, kFlagDstUnknown);
  place(bits & kSrcIsArray, src, src_xyz, event.src, kSrcPitch, kSrcSlicePitch, kFlagSrcUnknown);
  if (pitched) {
    // A 2D copy's single slice needs no slice pitch (the array's would
    // exceed what a 2D shape allows).
    if (words[kDepth] <= 1) words[kDstSlicePitch] = words[kSrcSlicePitch] = 0;
    event.bytes = words[kWidth] * words[kHeight] * words[kDepth];
  }
  words.resize(at);
  // Two arrays this capture did not see: the copy stays an op of its
  // stream that touches nothing.
  if ((event.flags & kFlagDstUnknown) && (event.flags & kFlagSrcUnknown)) {
    event.flags &= static_cast<uint16_t>(~(kFlagDstUnknown | kFlagSrcUnknown | kFlagPitched));
    event.bytes = 0;
    words.clear();
  }
}

}  // namespace racetrack::capture
