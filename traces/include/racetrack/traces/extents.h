// The bytes a copy or memset touches, from its shape (racetrack.proto
// Pitched): one contiguous range, or the rows of a 2D / 3D pitched shape.
// Every consumer (check, sim, replay, the viewer, the validator) takes the
// geometry from here, so none re-derives it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "racetrack.pb.h"

namespace racetrack {

// A contiguous byte range [lo, hi).
struct ByteRange {
  uint64_t lo = 0, hi = 0;
  uint64_t size() const { return hi - lo; }
};

// One side (destination or source) of a shaped op: `count()` runs of
// `run_bytes()` contiguous bytes. Rows are merged where the pitch equals the
// width, and slices where they then abut, so a contiguous 2D copy is one run.
class SideExtents {
 public:
  // A contiguous range of `bytes` at `base`.
  static SideExtents contiguous(uint64_t base, uint64_t bytes);
  // `depth` slices of `height` rows of `width` bytes, `pitch` apart, slices
  // `slice_pitch` apart (0: pitch * height). Call shape_error() first: the
  // geometry must be valid.
  static SideExtents pitched(uint64_t base, uint64_t width, uint64_t height, uint64_t depth, uint64_t pitch,
                             uint64_t slice_pitch);

  uint64_t count() const { return rows_ * slices_; }
  uint64_t run_bytes() const { return width_; }
  // Byte offset of run i from the base.
  uint64_t offset(uint64_t i) const { return (i / rows_) * slice_pitch_ + (i % rows_) * pitch_; }
  ByteRange run(uint64_t i) const { return {base_ + offset(i), base_ + offset(i) + width_}; }
  // [first byte, last byte + 1): the range a hull-based consumer sees.
  ByteRange hull() const;
  bool strided() const { return count() > 1; }

 private:
  static SideExtents make(uint64_t base, uint64_t width, uint64_t height, uint64_t depth, uint64_t pitch,
                          uint64_t slice_pitch, bool merge_rows, bool merge_slices);

  uint64_t base_ = 0, width_ = 0, rows_ = 0, slices_ = 1, pitch_ = 0, slice_pitch_ = 0;
};

SideExtents dst_extents(const v1::Memcpy& c);
SideExtents src_extents(const v1::Memcpy& c);
SideExtents memset_extents(const v1::Memset& m);

// What is wrong with an op's shape (a pitch below the row width,
// overlapping slices, a byte count that is not width * height * depth, a
// side that overflows the address space), or nothing; the message starts
// with "memcpy" or "memset" and names the side.
std::optional<std::string> shape_error(const v1::Memcpy& c);
std::optional<std::string> shape_error(const v1::Memset& m);

// "2D 256 x 64 rows, dst pitch 512, src pitch 256" for details and dumps;
// empty for a contiguous op.
std::string describe_shape(const v1::Pitched& p, bool copy);

}  // namespace racetrack
