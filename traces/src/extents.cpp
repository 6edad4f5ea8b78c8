#include "racetrack/traces/extents.h"

#include "racetrack/traces/describe.h"

namespace racetrack {
namespace {

uint64_t depth_of(const v1::Pitched& p) {
  return p.depth() == 0 ? 1 : p.depth();
}

uint64_t slice_pitch_of(uint64_t explicit_pitch, uint64_t pitch, uint64_t height) {
  return explicit_pitch != 0 ? explicit_pitch : pitch * height;
}

struct Side {
  const char* name;
  uint64_t base, pitch, slice_pitch;
};

// The first error of one side's geometry, checked with overflow-safe
// arithmetic since every field comes from the trace.
std::optional<std::string> side_error(const char* what, const v1::Pitched& p, const Side& s) {
  const std::string side = std::string(what) + " " + s.name;
  if (p.width() > s.pitch)
    return side + " pitch " + std::to_string(s.pitch) + " is less than the row width " +
           std::to_string(p.width());
  const uint64_t height = p.height(), depth = depth_of(p);
  uint64_t slice_span = 0, span = 0, slice_pitch = 0, last = 0;
  if (__builtin_mul_overflow(s.pitch, height == 0 ? 0 : height - 1, &slice_span) ||
      __builtin_add_overflow(slice_span, p.width(), &slice_span) ||
      (s.slice_pitch == 0 && __builtin_mul_overflow(s.pitch, height, &slice_pitch)))
    return side + " slice of " + std::to_string(height) + " rows " + std::to_string(s.pitch) +
           " bytes apart overflows 64 bits";
  if (s.slice_pitch != 0) slice_pitch = s.slice_pitch;
  if (depth > 1 && slice_pitch < slice_span)
    return side + " slice pitch " + std::to_string(slice_pitch) + " is less than a slice's extent " +
           std::to_string(slice_span);
  if (__builtin_mul_overflow(slice_pitch, depth - 1, &span) ||
      __builtin_add_overflow(span, slice_span, &span) || __builtin_add_overflow(s.base, span, &last))
    return side + " range " + hex(s.base) + " + " + std::to_string(depth) +
           " slices overflows the address space";
  return std::nullopt;
}

std::optional<std::string> bytes_error(const char* what, const v1::Pitched& p, uint64_t bytes) {
  uint64_t total = 0;
  if (__builtin_mul_overflow(p.width(), p.height(), &total) ||
      __builtin_mul_overflow(total, depth_of(p), &total))
    return std::string(what) + " shape " + std::to_string(p.width()) + " x " + std::to_string(p.height()) +
           " x " + std::to_string(depth_of(p)) + " overflows 64 bits";
  if (total != bytes)
    return std::string(what) + " bytes " + std::to_string(bytes) +
           " is not width x height x depth = " + std::to_string(total);
  return std::nullopt;
}

}  // namespace

SideExtents SideExtents::contiguous(uint64_t base, uint64_t bytes) {
  SideExtents e;
  e.base_ = base;
  e.width_ = e.pitch_ = e.slice_pitch_ = bytes;
  e.rows_ = bytes == 0 ? 0 : 1;
  return e;
}

SideExtents SideExtents::pitched(uint64_t base, uint64_t width, uint64_t height, uint64_t depth,
                                 uint64_t pitch, uint64_t slice_pitch) {
  if (depth == 0) depth = 1;
  slice_pitch = slice_pitch_of(slice_pitch, pitch, height);
  return make(base, width, height, depth, pitch, slice_pitch, pitch == width || height == 1,
              slice_pitch == width * height || depth == 1);
}

// Rows that abut are one run per slice; slices that then abut are one run.
SideExtents SideExtents::make(uint64_t base, uint64_t width, uint64_t height, uint64_t depth, uint64_t pitch,
                              uint64_t slice_pitch, bool merge_rows, bool merge_slices) {
  if (width == 0 || height == 0) return contiguous(base, 0);
  SideExtents e;
  e.base_ = base;
  e.width_ = width;
  e.rows_ = height;
  e.slices_ = depth;
  e.pitch_ = pitch;
  e.slice_pitch_ = slice_pitch;
  if (!merge_rows) return e;
  e.width_ *= e.rows_;
  e.rows_ = 1;
  e.pitch_ = e.width_;
  if (!merge_slices) return e;
  e.width_ *= e.slices_;
  e.slices_ = 1;
  e.slice_pitch_ = e.width_;
  return e;
}

ByteRange SideExtents::hull() const {
  if (count() == 0) return {base_, base_};
  return {base_, base_ + offset(count() - 1) + width_};
}

SideExtents dst_extents(const v1::Memcpy& c) {
  if (c.dst_unknown()) return SideExtents::contiguous(c.dst(), 0);
  if (!c.has_pitched()) return SideExtents::contiguous(c.dst(), c.bytes());
  const v1::Pitched& p = c.pitched();
  return SideExtents::pitched(c.dst(), p.width(), p.height(), p.depth(), p.dst_pitch(), p.dst_slice_pitch());
}

SideExtents src_extents(const v1::Memcpy& c) {
  if (c.src_unknown()) return SideExtents::contiguous(c.src(), 0);
  if (!c.has_pitched()) return SideExtents::contiguous(c.src(), c.bytes());
  const v1::Pitched& p = c.pitched();
  return SideExtents::pitched(c.src(), p.width(), p.height(), p.depth(), p.src_pitch(), p.src_slice_pitch());
}

SideExtents memset_extents(const v1::Memset& m) {
  if (!m.has_pitched()) return SideExtents::contiguous(m.dst(), m.bytes());
  const v1::Pitched& p = m.pitched();
  return SideExtents::pitched(m.dst(), p.width(), p.height(), p.depth(), p.dst_pitch(), p.dst_slice_pitch());
}

std::optional<std::string> shape_error(const v1::Memcpy& c) {
  if (!c.has_pitched()) return std::nullopt;
  const v1::Pitched& p = c.pitched();
  if (auto e = bytes_error("memcpy", p, c.bytes())) return e;
  if (auto e = side_error("memcpy", p, {"destination", c.dst(), p.dst_pitch(), p.dst_slice_pitch()}))
    return e;
  return side_error("memcpy", p, {"source", c.src(), p.src_pitch(), p.src_slice_pitch()});
}

std::optional<std::string> shape_error(const v1::Memset& m) {
  if (!m.has_pitched()) return std::nullopt;
  const v1::Pitched& p = m.pitched();
  if (p.src_pitch() != 0 || p.src_slice_pitch() != 0) return std::string("memset shape sets a source pitch");
  if (auto e = bytes_error("memset", p, m.bytes())) return e;
  return side_error("memset", p, {"destination", m.dst(), p.dst_pitch(), p.dst_slice_pitch()});
}

std::string describe_shape(const v1::Pitched& p, bool copy) {
  const uint64_t depth = depth_of(p);
  std::string out = (depth > 1 ? "3D " : "2D ") + std::to_string(p.height()) + " rows of " +
                    std::to_string(p.width()) + " B";
  if (depth > 1) out += " x " + std::to_string(depth) + " slices";
  out += ", dst pitch " + std::to_string(p.dst_pitch());
  if (copy) out += ", src pitch " + std::to_string(p.src_pitch());
  if (p.dst_slice_pitch()) out += ", dst slice pitch " + std::to_string(p.dst_slice_pitch());
  if (copy && p.src_slice_pitch()) out += ", src slice pitch " + std::to_string(p.src_slice_pitch());
  return out;
}

}  // namespace racetrack
