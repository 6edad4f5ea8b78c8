// Strided copies and memsets (docs/check.md, "Strided copies"): a 2D / 3D
// pitched op touches its rows, not their hull, so copies interleaving rows
// do not race, overlapping rows do, and a kernel in the gap between rows
// does not race with the copy. A shape with very many rows falls back to
// its hull at block precision.
#include <gtest/gtest.h>

#include "check_test_support.h"
#include "racetrack/traces/builder.h"

namespace racetrack::check_test {
namespace {

using race::Confidence;
using race::HazardClass;
using race::HazardKind;

constexpr uint64_t kWidth = 256, kPitch = 512, kRows = 16;

// Two unordered streams writing one pitched image from a pinned buffer.
struct Image {
  TraceBuilder b;
  StreamId s1 = b.stream("copy1", v1::ROLE_H2D);
  StreamId s2 = b.stream("copy2", v1::ROLE_COMPUTE);
  Buffer image = b.device_buffer("image", 1 << 20);
  Buffer host = b.pinned_buffer("host", 1 << 20);

  // A 2D H2D copy of kRows rows of `width` bytes into the image at
  // `offset`, rows `pitch` apart; the host side is packed.
  void copy_2d(StreamId s, uint64_t offset, uint64_t width = kWidth, uint64_t rows = kRows,
               uint64_t pitch = kPitch) {
    b.memcpy(s, image.slice(offset, width * rows), host.slice(0, width * rows));
    v1::Pitched* p = b.last_op().mutable_memcpy()->mutable_pitched();
    p->set_width(width);
    p->set_height(rows);
    p->set_dst_pitch(pitch);
    p->set_src_pitch(width);
  }
  v1::Chunk take() {
    v1::Chunk trace = b.take();
    EXPECT_EQ(validation_errors(trace), std::vector<std::string>{});
    return trace;
  }
};

TEST(StridedCopies, InterleavedRowsInOneHullDoNotRace) {
  Image t;
  t.copy_2d(t.s1, 0);       // rows at 0, 512, 1024, ...
  t.copy_2d(t.s2, kWidth);  // rows at 256, 768, ...: the gaps of the first
  expect_clean(t.take());
}

TEST(StridedCopies, OverlappingRowsRaceOnceWithTheOverlap) {
  Image t;
  t.copy_2d(t.s1, 0);
  t.copy_2d(t.s2, kWidth / 2);  // each row overlaps half of a row of the first
  const race::CheckResult result =
      expect_hazards(t.take(), {{1, 2, HazardKind::kWaw, HazardClass::kCopyVsCopy, 1, 1}});
  ASSERT_EQ(result.all.size(), 1u);
  EXPECT_EQ(result.all[0].confidence, Confidence::kDefinite);
}

TEST(StridedCopies, KernelInTheGapBetweenRowsDoesNotRace) {
  Image t;
  t.copy_2d(t.s1, 0);
  t.b.kernel(t.s2, "gap_writer", {}, {t.image.slice(kWidth, kPitch - kWidth)});  // between rows 0 and 1
  t.b.kernel(t.s2, "tail_reader", {t.image.slice(kPitch * (kRows - 1) + kWidth, 64)},
             {});  // past the last row
  expect_clean(t.take());
}

TEST(StridedCopies, KernelOnARowRaces) {
  Image t;
  t.copy_2d(t.s1, 0);
  t.b.kernel(t.s2, "row_reader", {t.image.slice(kPitch * 7 + 8, 16)}, {});  // inside row 7
  expect_hazards(t.take(), {{1, 2, HazardKind::kRaw, HazardClass::kCopyVsCompute, 1, 0}});
}

TEST(StridedCopies, SourceRowsAreExactToo) {
  // A D2H copy reading a pitched device image: a kernel writing a gap of
  // the source does not race; one writing a source row does.
  for (const bool on_row : {false, true}) {
    SCOPED_TRACE(on_row ? "on a row" : "in a gap");
    Image t;
    t.b.memcpy(t.s1, t.host.slice(0, kWidth * kRows), t.image.slice(0, kWidth * kRows));
    v1::Pitched* p = t.b.last_op().mutable_memcpy()->mutable_pitched();
    p->set_width(kWidth);
    p->set_height(kRows);
    p->set_dst_pitch(kWidth);
    p->set_src_pitch(kPitch);
    t.b.kernel(t.s2, "writer", {}, {t.image.slice(kPitch * 3 + (on_row ? 0 : kWidth), 32)});
    if (on_row)
      expect_hazards(t.take(), {{1, 2, HazardKind::kWar, HazardClass::kCopyVsCompute, 0, 0}});
    else
      expect_clean(t.take());
  }
}

TEST(StridedCopies, ThreeDimensionalSlicesKeepTheirGaps) {
  // 2 slices of 4 rows of 64 bytes, rows 128 apart, slices 1024 apart
  // (explicit: more than pitch x height). The bytes between the end of
  // slice 0's last row and slice 1 are untouched.
  Image t;
  t.b.memcpy(t.s1, t.image.slice(0, 64 * 4 * 2), t.host.slice(0, 64 * 4 * 2));
  v1::Pitched* p = t.b.last_op().mutable_memcpy()->mutable_pitched();
  p->set_width(64);
  p->set_height(4);
  p->set_depth(2);
  p->set_dst_pitch(128);
  p->set_src_pitch(64);
  p->set_dst_slice_pitch(1024);
  t.b.kernel(t.s2, "between_slices", {t.image.slice(3 * 128 + 64, 1024 - 3 * 128 - 64)}, {});
  t.b.kernel(t.s2, "slice1_row2", {t.image.slice(1024 + 2 * 128, 8)}, {});
  expect_hazards(t.take(), {{1, 3, HazardKind::kRaw, HazardClass::kCopyVsCompute, 1, 0}});
}

TEST(StridedCopies, PitchedMemsetTouchesItsRows) {
  Image t;
  t.b.memset(t.s1, t.image.slice(0, kWidth * kRows));
  v1::Pitched* p = t.b.last_op().mutable_memset()->mutable_pitched();
  p->set_width(kWidth);
  p->set_height(kRows);
  p->set_dst_pitch(kPitch);
  t.copy_2d(t.s2, kWidth);                                             // the gaps: no race
  t.b.kernel(t.s2, "row_reader", {t.image.slice(kPitch * 2, 4)}, {});  // row 2: a race
  expect_hazards(t.take(), {{1, 3, HazardKind::kRaw, HazardClass::kCopyVsCompute, 0, 0}});
}

TEST(StridedCopies, VeryManyRowsFallBackToTheHullAsABlock) {
  // 5000 rows of 16 bytes 32 apart: above the 4096-row limit the copy's
  // destination is its hull at block precision, so a kernel in a gap is a
  // likely (not definite) hazard: sound, never a missed race.
  Image t;
  t.copy_2d(t.s1, 0, 16, 5000, 32);
  t.b.kernel(t.s2, "gap_reader", {t.image.slice(16, 16)}, {});
  const race::CheckResult result =
      expect_hazards(t.take(), {{1, 2, HazardKind::kRaw, HazardClass::kCopyVsCompute, 1, 0}});
  ASSERT_EQ(result.all.size(), 1u);
  EXPECT_EQ(result.all[0].confidence, Confidence::kLikely);
  EXPECT_EQ(result.all[0].first.access.precision, v1::PRECISION_BLOCK);
}

TEST(StridedCopies, ContiguousPitchIsOneRange) {
  // pitch == width: the rows abut, so the copy is one exact range and a
  // kernel anywhere inside it races.
  Image t;
  t.copy_2d(t.s1, 0, kWidth, kRows, kWidth);
  t.b.kernel(t.s2, "reader", {t.image.slice(kWidth * 5 - 4, 8)}, {});
  expect_hazards(t.take(), {{1, 2, HazardKind::kRaw, HazardClass::kCopyVsCompute, 1, 0}});
}

}  // namespace
}  // namespace racetrack::check_test
