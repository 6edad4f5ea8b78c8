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

// kFlagBatch: the payload holds one (dst, src, bytes) triple per copy; the
// event's dst / src / bytes are the first copy's.
inline constexpr uint32_t kBatchWordsPerCopy = 3;

}  // namespace racetrack::capture
