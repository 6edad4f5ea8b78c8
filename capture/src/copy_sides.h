// The two sides of a pitched or array copy as the copy families build them
// (callback_decoder_copies_2d.cpp, _arrays.cpp, _copies_batch.cpp), and
// how they go into the event and its payload (copy_shape_words.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <iterator>

#include "callback_decoder_family.h"
#include "copy_shape_words.h"

namespace racetrack::capture::decoder {

// A side in linear memory (its first byte and pitches), or inside a CUDA
// array (the handle and a position the assembler turns into an address).
struct Side {
  uint64_t first = 0;  // the first byte, or the array handle
  uint64_t pitch = 0, slice_pitch = 0;
  bool array = false;
  uint64_t x = 0, y = 0, z = 0;  // the position inside the array
};

inline Side array_side(uint64_t handle, uint64_t x, uint64_t y = 0, uint64_t z = 0) {
  return {handle, 0, 0, true, x, y, z};
}

// The pitched words, then the array words, of a copy between two sides
// (kShapeWords of them into `out`); `bits` adds
// kInElements / kPitchesInElements.
inline void shape_words(const Side& dst, const Side& src, uint64_t width, uint64_t height, uint64_t depth,
                        uint64_t bits, uint64_t* out) {
  bits |= (dst.array ? kDstIsArray : uint64_t{0}) | (src.array ? kSrcIsArray : uint64_t{0});
  const uint64_t words[kShapeWords] = {width,           height,          depth, dst.pitch, src.pitch,
                                       dst.slice_pitch, src.slice_pitch, dst.x, dst.y,     dst.z,
                                       src.x,           src.y,           src.z, bits};
  std::copy(std::begin(words), std::end(words), out);
}

// `depth` slices of `height` rows of `width` bytes (elements when
// `in_elements`) into the event and payload, with the array words when a
// side is an array; false when the payload has no room (the copy is then
// not recorded, rather than recorded as a wrong contiguous range).
inline bool write_pitched(const Side& dst, const Side& src, uint64_t width, uint64_t height, uint64_t depth,
                          ApiEvent& event, Payload& payload, bool in_elements = false) {
  const bool arrays = dst.array || src.array;
  uint64_t words[kShapeWords];
  shape_words(dst, src, width, height, depth, in_elements ? kInElements : uint64_t{0}, words);
  if (!append_words(words, arrays ? kShapeWords : uint32_t{kPitchedWords}, event, payload)) return false;
  event.flags |= kFlagPitched | (arrays ? kFlagArraySides : 0);
  event.dst = dst.first;
  event.src = src.first;
  event.bytes = width * height * depth;
  return true;
}

// A contiguous `bytes` between two sides, at least one of them an array
// (cudaMemcpyToArray, cuMemcpyAtoD, ...): inside an array the bytes run on
// across rows, in row-major order.
inline bool write_contiguous(const Side& dst, const Side& src, uint64_t bytes, ApiEvent& event,
                             Payload& payload) {
  uint64_t words[kShapeWords];
  shape_words(dst, src, 0, 0, 0, 0, words);
  if (!append_words(words + kPitchedWords, kArrayWords, event, payload)) return false;
  event.flags |= kFlagArraySides;
  event.dst = dst.first;
  event.src = src.first;
  event.bytes = bytes;
  return true;
}

}  // namespace racetrack::capture::decoder
