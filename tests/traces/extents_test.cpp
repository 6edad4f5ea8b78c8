// The byte extents of copies and memsets (extents.h): contiguous ranges,
// the rows of 2D / 3D shapes (merged where they abut), unknown sides,
// and the shape errors the validator reports.
#include "racetrack/traces/extents.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace racetrack {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

std::vector<std::pair<uint64_t, uint64_t>> runs_of(const SideExtents& e) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (uint64_t i = 0; i < e.count(); ++i) out.emplace_back(e.run(i).lo, e.run(i).hi);
  return out;
}

v1::Memcpy copy_2d(uint64_t width, uint64_t height, uint64_t dst_pitch, uint64_t src_pitch,
                   uint64_t depth = 0) {
  v1::Memcpy c;
  c.set_dst(0x1000);
  c.set_src(0x100000);
  c.set_bytes(width * height * (depth ? depth : 1));
  v1::Pitched& p = *c.mutable_pitched();
  p.set_width(width);
  p.set_height(height);
  p.set_depth(depth);
  p.set_dst_pitch(dst_pitch);
  p.set_src_pitch(src_pitch);
  return c;
}

TEST(Extents, ContiguousCopyIsOneRange) {
  v1::Memcpy c;
  c.set_dst(0x1000);
  c.set_src(0x2000);
  c.set_bytes(64);
  EXPECT_EQ(runs_of(dst_extents(c)), (std::vector<std::pair<uint64_t, uint64_t>>{{0x1000, 0x1040}}));
  EXPECT_FALSE(dst_extents(c).strided());
  c.set_bytes(0);
  EXPECT_EQ(dst_extents(c).count(), 0u);
}

TEST(Extents, PitchedSideIsItsRows) {
  const v1::Memcpy c = copy_2d(16, 3, 64, 16);
  EXPECT_EQ(runs_of(dst_extents(c)), (std::vector<std::pair<uint64_t, uint64_t>>{
                                         {0x1000, 0x1010}, {0x1040, 0x1050}, {0x1080, 0x1090}}));
  EXPECT_EQ(dst_extents(c).hull().lo, 0x1000u);
  EXPECT_EQ(dst_extents(c).hull().hi, 0x1090u);
  EXPECT_TRUE(dst_extents(c).strided());
  // The packed source side: rows abut, one range.
  EXPECT_EQ(runs_of(src_extents(c)), (std::vector<std::pair<uint64_t, uint64_t>>{{0x100000, 0x100030}}));
}

TEST(Extents, SlicesFollowTheirPitch) {
  v1::Memcpy c = copy_2d(8, 2, 16, 8, 2);
  c.mutable_pitched()->set_dst_slice_pitch(100);
  // Rows at 0, 16 in slice 0 and 100, 116 in slice 1.
  EXPECT_EQ(runs_of(dst_extents(c)),
            (std::vector<std::pair<uint64_t, uint64_t>>{
                {0x1000, 0x1008}, {0x1010, 0x1018}, {0x1064, 0x106c}, {0x1074, 0x107c}}));
  // Slice pitch 0 is pitch x height: a packed source is one range.
  EXPECT_EQ(src_extents(c).count(), 1u);
  EXPECT_EQ(src_extents(c).run_bytes(), 32u);
  // Rows that abut in slices that do not: one run per slice.
  c.mutable_pitched()->set_dst_pitch(8);
  EXPECT_EQ(runs_of(dst_extents(c)),
            (std::vector<std::pair<uint64_t, uint64_t>>{{0x1000, 0x1010}, {0x1064, 0x1074}}));
}

TEST(Extents, AnUnknownSideHasNoRuns) {
  v1::Memcpy unknown = copy_2d(16, 3, 64, 16);
  unknown.set_dst_unknown(true);
  EXPECT_EQ(dst_extents(unknown).count(), 0u);
  EXPECT_EQ(src_extents(unknown).count(), 1u);
}

TEST(Extents, MemsetRows) {
  v1::Memset m;
  m.set_dst(0x4000);
  m.set_bytes(20);
  v1::Pitched& p = *m.mutable_pitched();
  p.set_width(10);
  p.set_height(2);
  p.set_dst_pitch(32);
  EXPECT_EQ(runs_of(memset_extents(m)),
            (std::vector<std::pair<uint64_t, uint64_t>>{{0x4000, 0x400a}, {0x4020, 0x402a}}));
  EXPECT_EQ(shape_error(m), std::nullopt);
  p.set_src_pitch(10);
  EXPECT_THAT(shape_error(m), Optional(HasSubstr("memset shape sets a source pitch")));
}

TEST(Extents, ShapeErrorsNameWhatIsWrong) {
  EXPECT_EQ(shape_error(copy_2d(16, 3, 64, 16)), std::nullopt);
  EXPECT_THAT(shape_error(copy_2d(16, 3, 8, 16)),
              Optional(HasSubstr("memcpy destination pitch 8 is less than the row width 16")));
  EXPECT_THAT(shape_error(copy_2d(16, 3, 16, 4)),
              Optional(HasSubstr("memcpy source pitch 4 is less than the row width 16")));
  v1::Memcpy wrong_bytes = copy_2d(16, 3, 64, 16);
  wrong_bytes.set_bytes(47);
  EXPECT_THAT(shape_error(wrong_bytes), Optional(HasSubstr("bytes 47 is not width x height x depth = 48")));
  v1::Memcpy overlapping = copy_2d(16, 3, 64, 16, 2);
  overlapping.mutable_pitched()->set_dst_slice_pitch(100);  // a slice spans 144 bytes
  EXPECT_THAT(shape_error(overlapping),
              Optional(HasSubstr("slice pitch 100 is less than a slice's extent 144")));
  v1::Memcpy wraps = copy_2d(16, 3, 64, 16);
  wraps.set_dst(std::numeric_limits<uint64_t>::max() - 100);
  EXPECT_THAT(shape_error(wraps), Optional(HasSubstr("overflows the address space")));
  v1::Memcpy huge = copy_2d(16, 3, 64, 16);
  huge.mutable_pitched()->set_height(uint64_t{1} << 62);
  EXPECT_THAT(shape_error(huge), Optional(HasSubstr("overflows 64 bits")));
}

TEST(Extents, DescribeShape) {
  EXPECT_EQ(describe_shape(copy_2d(16, 3, 64, 16).pitched(), true),
            "2D 3 rows of 16 B, dst pitch 64, src pitch 16");
  EXPECT_EQ(describe_shape(copy_2d(16, 3, 64, 16, 4).pitched(), false),
            "3D 3 rows of 16 B x 4 slices, dst pitch 64");
}

}  // namespace
}  // namespace racetrack
