// How a pitched copy or memset (cudaMemcpy2D/3D, cudaMemset2D/3D, their
// driver forms) and a batch of copies (cudaMemcpyBatchAsync) carry their
// geometry from the callback decoder to the trace assembler: as payload
// words of their ApiEvent (kFlagPitched / kFlagBatch), so the event itself
// stays small for the common contiguous copy.
#pragma once
#include <cstdint>

namespace racetrack::capture {

// kFlagPitched: the payload holds these seven words; the event's dst / src
// are the first byte of each side and `bytes` is width * height * depth.
enum PitchedWord : uint32_t {
  kWidth = 0,      // bytes per row
  kHeight,         // rows per slice
  kDepth,          // slices (1 for 2D)
  kDstPitch,       // bytes between destination rows
  kSrcPitch,       // bytes between source rows (0 for memsets)
  kDstSlicePitch,  // bytes between destination slices, 0: pitch * height
  kSrcSlicePitch,  // bytes between source slices, 0: pitch * height
  kPitchedWords,
};

// kFlagArraySides: after the pitched words (from word 0 for a contiguous
// copy) come these seven. A side that is an array has its position there
// instead of an address (x in bytes, or in the array's elements with
// kInElements: cudaMemcpy3D's extent and positions when an array takes
// part); kInElements also makes the pitched width a count of elements.
enum ArrayWord : uint32_t {
  kDstX = 0,
  kDstY,
  kDstZ,
  kSrcX,
  kSrcY,
  kSrcZ,
  kArrayBits,  // kDstIsArray | kSrcIsArray | kInElements | kPitchesInElements
  kArrayWords,
};
// kPitchesInElements (cudaMemcpy3DBatchAsync) also counts the linear sides'
// pitches in elements.
inline constexpr uint64_t kDstIsArray = 1, kSrcIsArray = 2, kInElements = 4, kPitchesInElements = 8;

// The pitched words and the array words together.
inline constexpr uint32_t kShapeWords = uint32_t{kPitchedWords} + uint32_t{kArrayWords};

// kArrayCreate: the payload holds the array's shape.
enum ArrayShapeWord : uint32_t {
  kArrayWidth = 0,    // elements per row
  kArrayHeight,       // rows (0 or 1: a 1D array)
  kArrayDepth,        // slices or layers (0 or 1: one)
  kArrayElementSize,  // bytes per element, 0 when the format is not one racetrack knows
  kArrayShapeWords,
};

// kFlagBatch: the payload holds one (dst, src, bytes) triple per copy; the
// event's dst / src / bytes are the first copy's.
inline constexpr uint32_t kBatchWordsPerCopy = 3;

// kFlagBatch3D: per copy, dst and src (first byte or array handle), then
// its pitched words and its array words (all counted in elements).
inline constexpr uint32_t kBatch3DWordsPerCopy = 2 + kShapeWords;

}  // namespace racetrack::capture
