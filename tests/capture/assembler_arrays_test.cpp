// CUDA arrays through the assembler: each array gets a range of its own,
// copies naming array positions land in it with the array's pitches, a
// copy from an array the capture never saw keeps that side unknown, and
// the checker sees two unordered copies into the same elements as a race
// (and into disjoint rows as none).
#include "assembler_arrays.h"

#include <gtest/gtest.h>

#include "assembler_test_support.h"
#include "copy_shape_words.h"
#include "racetrack/traces/validate.h"

namespace racetrack::capture::testing {
namespace {

using racetrack::testing::TempDir;

constexpr uint64_t kArray = 0xA400, kPinned = 0x200000000;
constexpr uint64_t kRow = 64 * 4;  // 64 four-byte elements

void create_array(FakeProgram& p) {
  ApiEvent& e = p.call(ApiKind::kArrayCreate);
  e.handle = kArray;
  e.payload_words = kArrayShapeWords;
  p.events.back().payload = {64, 16, 0, 4};
}

// cudaMemcpy2DToArrayAsync: `rows` rows of 128 bytes from pinned memory to
// the array's row `first_row`, column byte 32.
void copy_rows_to_array(FakeProgram& p, FakeStream s, uint64_t first_row, uint64_t rows) {
  p.memcpy(s, kArray, kPinned, 128 * rows, 1, MemoryKind::kArray, MemoryKind::kPinned);
  LoggedEvent& copy = p.events.back();
  copy.event.flags |= kFlagPitched | kFlagArraySides;
  copy.payload = {128, rows, 1, 0, 512, 0, 0, 32, first_row, 0, 0, 0, 0, kDstIsArray};
  copy.event.payload_words = kShapeWords;
}

void expect_valid(const v1::Chunk& trace) {
  Validator v;
  v.check(trace, 0);
  EXPECT_EQ(v.error_count(), 0u) << (v.errors().empty() ? "" : v.errors()[0].message);
}

TEST(AssemblerArrays, AnArrayIsARegionAndItsCopiesLandInIt) {
  FakeProgram p;
  p.alloc(ApiKind::kHostAlloc, kPinned, 1 << 20);
  create_array(p);
  copy_rows_to_array(p, user_stream(0), 2, 4);
  // cuMemcpyAtoH from an array this capture never saw created.
  p.memcpy(user_stream(0), kPinned, 0xB000, 512, 2, MemoryKind::kPinned, MemoryKind::kArray);
  LoggedEvent& unknown = p.events.back();
  unknown.event.flags |= kFlagArraySides;
  unknown.payload = {0, 0, 0, 0, 0, 0, kSrcIsArray};
  unknown.event.payload_words = kArrayWords;
  p.call(ApiKind::kArrayDestroy).handle = kArray;
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));

  const v1::Region* array = nullptr;
  for (const v1::Region& r : a.trace.regions())
    if (r.origin() == v1::ORIGIN_CUDA_ARRAY) array = &r;
  ASSERT_NE(array, nullptr);
  EXPECT_EQ(array->base(), ArrayTable::kRangeBase);
  EXPECT_EQ(array->size(), kRow * 16);
  EXPECT_EQ(array->space(), v1::SPACE_DEVICE);

  const auto copies = ops_of(a.trace, v1::Op::kMemcpy);
  ASSERT_EQ(copies.size(), 2u);
  const v1::Memcpy& to = copies[0]->memcpy();
  EXPECT_EQ(to.dst(), ArrayTable::kRangeBase + 2 * kRow + 32);
  EXPECT_EQ(to.src(), kPinned);
  ASSERT_TRUE(to.has_pitched());
  EXPECT_EQ(to.pitched().width(), 128u);
  EXPECT_EQ(to.pitched().dst_pitch(), kRow);
  EXPECT_EQ(to.pitched().src_pitch(), 512u);
  EXPECT_EQ(to.dst_space(), v1::SPACE_DEVICE);
  const v1::Memcpy& from_unknown = copies[1]->memcpy();
  EXPECT_TRUE(from_unknown.src_unknown());
  EXPECT_FALSE(from_unknown.dst_unknown());
  EXPECT_EQ(from_unknown.dst(), kPinned);

  const auto frees = ops_of(a.trace, v1::Op::kFree);
  ASSERT_EQ(frees.size(), 1u);
  EXPECT_EQ(frees[0]->free().region(), array->id());
  expect_valid(a.trace);
}

TEST(AssemblerArrays, ThreeDimensionalCopiesCountTheArraysElements) {
  ArrayTable arrays;
  const uint64_t shape[kArrayShapeWords] = {10, 4, 3, 8};  // 10 x 4 x 3 of 8 bytes
  ASSERT_TRUE(arrays.create(0xA500, shape));
  ApiEvent copy;
  copy.kind = ApiKind::kMemcpy;
  copy.flags = kFlagPitched | kFlagArraySides;
  copy.dst = 0xA500;
  copy.src = 0x7f0000000000;
  // cudaMemcpy3D of a 5 x 2 x 2 element box to array position (1, 1, 1).
  std::vector<uint64_t> words = {5, 2, 2, 0, 4096, 0, 4096 * 2, 1, 1, 1, 0, 0, 0, kDstIsArray | kInElements};
  arrays.resolve(copy, words);
  EXPECT_EQ(copy.flags & kFlagArraySides, 0u);
  EXPECT_EQ(copy.dst, ArrayTable::kRangeBase + 1 * 80 * 4 + 1 * 80 + 8);
  EXPECT_EQ(copy.bytes, 40u * 2 * 2);
  EXPECT_EQ(words, (std::vector<uint64_t>{40, 2, 2, 80, 4096, 320, 8192}));
}

// Two streams copy into the array with no ordering between them.
race::CheckResult check_two_copies(uint64_t second_first_row) {
  FakeProgram p;
  p.alloc(ApiKind::kHostAlloc, kPinned, 1 << 20);
  p.call(ApiKind::kStreamCreate, user_stream(0)).value = 1;
  p.call(ApiKind::kStreamCreate, user_stream(1)).value = 1;
  create_array(p);
  copy_rows_to_array(p, user_stream(0), 0, 4);
  copy_rows_to_array(p, user_stream(1), second_first_row, 4);
  TempDir dir;
  return check(assemble(p, dir.path("t.rtrace")).trace);
}

TEST(AssemblerArrays, UnorderedCopiesIntoTheSameElementsRace) {
  const race::CheckResult overlapping = check_two_copies(3);
  ASSERT_EQ(overlapping.all.size(), 1u);
  EXPECT_EQ(overlapping.all[0].kind, race::HazardKind::kWaw);
  EXPECT_EQ(overlapping.all[0].lo, ArrayTable::kRangeBase + 3 * kRow + 32);
  EXPECT_EQ(check_two_copies(4).hazards, 0u);  // rows 0-3 and 4-7: no element in common
}

// cudaMemcpy3DBatchAsync: one pitched copy per op, the array's element size
// scaling the extent and the pointer's pitches alike.
TEST(AssemblerArrays, A3DBatchIsOnePlacedCopyPerOp) {
  FakeProgram p;
  p.alloc(ApiKind::kHostAlloc, kPinned, 1 << 20);
  create_array(p);
  p.memcpy(user_stream(0), kArray, kPinned, 0, 1, MemoryKind::kArray, MemoryKind::kPinned);
  LoggedEvent& batch = p.events.back();
  batch.event.flags |= kFlagBatch3D;
  const uint64_t bits = kInElements | kPitchesInElements;
  batch.payload = {kArray,         kPinned, 16, 4, 1, 0,  16, 0,  64, 1, 2, 0, 0, 0, 0, kDstIsArray | bits,
                   kPinned + 4096, kPinned, 32, 2, 1, 32, 32, 64, 64, 0, 0, 0, 0, 0, 0, bits};
  batch.event.payload_words = 2 * kBatch3DWordsPerCopy;
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto copies = ops_of(a.trace, v1::Op::kMemcpy);
  ASSERT_EQ(copies.size(), 2u);
  const v1::Memcpy& to_array = copies[0]->memcpy();
  EXPECT_EQ(to_array.dst(), ArrayTable::kRangeBase + 2 * kRow + 1 * 4);
  EXPECT_EQ(to_array.bytes(), 16u * 4 * 4);
  EXPECT_EQ(to_array.pitched().width(), 64u);       // 16 four-byte elements
  EXPECT_EQ(to_array.pitched().dst_pitch(), kRow);  // the array's rows
  EXPECT_EQ(to_array.pitched().src_pitch(), 64u);   // packed: 16 elements of 4 bytes
  const v1::Memcpy& plain = copies[1]->memcpy();    // pointer to pointer: elements are bytes
  EXPECT_EQ(plain.dst(), kPinned + 4096);
  EXPECT_EQ(plain.bytes(), 64u);
  EXPECT_EQ(plain.pitched().src_pitch(), 32u);
  EXPECT_EQ(copies[0]->correlation_id(), copies[1]->correlation_id());
  expect_valid(a.trace);
}

}  // namespace
}  // namespace racetrack::capture::testing
