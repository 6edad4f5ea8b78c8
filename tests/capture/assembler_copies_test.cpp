// Pitched and batched copies through the assembler: a 2D / 3D shape in the
// payload becomes Memcpy.pitched / Memset.pitched, and a batch of N copies
// becomes N Memcpy ops with the call's correlation id, each with its own
// record when there is one per copy.
#include <gtest/gtest.h>

#include "assembler_test_support.h"
#include "copy_shape_words.h"
#include "racetrack/traces/validate.h"

namespace racetrack::capture::testing {
namespace {

using racetrack::testing::TempDir;

TEST(AssemblerCopies, PitchedCopyAndMemsetKeepTheirShape) {
  FakeProgram p;
  p.memcpy(user_stream(0), 0x7f0000000000, 0x200000000, 2048 * 32, 1, MemoryKind::kDevice,
           MemoryKind::kPinned);
  LoggedEvent& copy = p.events.back();
  copy.event.flags |= kFlagPitched;
  copy.payload = {2048, 32, 1, 4096, 2048, 0, 0};
  copy.event.payload_words = kPitchedWords;
  ApiEvent& set = p.call(ApiKind::kMemset, user_stream(0));
  set.dst = 0x7f0000100000;
  set.bytes = 200 * 4 * 2;
  set.value = 0xBEEF;
  set.element_size = 2;
  set.flags = kFlagAsync | kFlagPitched;
  set.payload_words = kPitchedWords;
  p.events.back().payload = {200, 4, 2, 512, 0, 4096, 0};
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto copies = ops_of(a.trace, v1::Op::kMemcpy);
  ASSERT_EQ(copies.size(), 1u);
  const v1::Memcpy& c = copies[0]->memcpy();
  ASSERT_TRUE(c.has_pitched());
  EXPECT_EQ(c.bytes(), 2048u * 32);
  EXPECT_EQ(c.pitched().width(), 2048u);
  EXPECT_EQ(c.pitched().height(), 32u);
  EXPECT_EQ(c.pitched().depth(), 0u);  // 2D
  EXPECT_EQ(c.pitched().dst_pitch(), 4096u);
  EXPECT_EQ(c.pitched().src_pitch(), 2048u);
  const auto memsets = ops_of(a.trace, v1::Op::kMemset);
  ASSERT_EQ(memsets.size(), 1u);
  const v1::Memset& m = memsets[0]->memset();
  ASSERT_TRUE(m.has_pitched());
  EXPECT_EQ(m.element_size(), 2u);
  EXPECT_EQ(m.pitched().depth(), 2u);
  EXPECT_EQ(m.pitched().dst_slice_pitch(), 4096u);
  EXPECT_EQ(m.pitched().src_pitch(), 0u);
  Validator v;
  v.check(a.trace, 0);
  EXPECT_EQ(v.error_count(), 0u) << (v.errors().empty() ? "" : v.errors()[0].message);
}

TEST(AssemblerCopies, ABatchIsOneOpPerCopyWithOneCorrelation) {
  FakeProgram p;
  const uint64_t correlation = p.memcpy(user_stream(0), 0x200000000, 0x7f0000000000, 4096, 4,
                                        MemoryKind::kPinned, MemoryKind::kDevice);
  LoggedEvent& batch = p.events.back();
  batch.event.flags |= kFlagBatch;
  batch.payload = {0x200000000, 0x7f0000000000, 4096, 0x200100000, 0x7f0000100000, 8192};
  batch.event.payload_words = 6;
  // A second copy record for the second copy, 10 µs later.
  CopyRecord second = std::get<CopyRecord>(p.records.back());
  second.bytes = 8192;
  second.start += 10000;
  second.end += 10000;
  p.records.push_back(second);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto copies = ops_of(a.trace, v1::Op::kMemcpy);
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0]->correlation_id(), correlation);
  EXPECT_EQ(copies[1]->correlation_id(), correlation);
  EXPECT_LT(copies[0]->seq(), copies[1]->seq());
  EXPECT_EQ(copies[0]->memcpy().dst(), 0x200000000u);
  EXPECT_EQ(copies[1]->memcpy().dst(), 0x200100000u);
  EXPECT_EQ(copies[1]->memcpy().src(), 0x7f0000100000u);
  EXPECT_EQ(copies[1]->memcpy().bytes(), 8192u);
  EXPECT_EQ(copies[1]->memcpy().dst_space(), v1::SPACE_PINNED_HOST);
  ASSERT_TRUE(copies[0]->has_device_start() && copies[1]->has_device_start());
  EXPECT_EQ(copies[1]->device_start() - copies[0]->device_start(), 10000);
  EXPECT_EQ(copies[0]->stream(), copies[1]->stream());
}

TEST(AssemblerCopies, SymbolCopyHasAnUnknownSideUnlessTheDriverCopyNamedIt) {
  FakeProgram p;
  ApiEvent& to = p.call(ApiKind::kMemcpy, user_stream(0));
  to.src = 0x200000000;
  to.bytes = 256;
  to.value = 1;
  to.handle = 0x601000;
  to.flags = kFlagDstUnknown;
  ApiEvent& named = p.call(ApiKind::kMemcpy, user_stream(0));
  named.dst = 0x7f0000000040;  // as the nested driver copy fills it in
  named.src = 0x200000000;
  named.bytes = 256;
  named.value = 1;
  named.handle = 0x601000;
  named.flags = kFlagDstUnknown;
  ApiEvent& fn = p.call(ApiKind::kHostFunc, user_stream(0));
  fn.handle = 0x401234;
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto copies = ops_of(a.trace, v1::Op::kMemcpy);
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_TRUE(copies[0]->memcpy().dst_unknown());
  EXPECT_FALSE(copies[0]->memcpy().src_unknown());
  EXPECT_EQ(string_of(a.trace, copies[0]->memcpy().symbol()), "symbol@0x601000");
  EXPECT_FALSE(copies[1]->memcpy().dst_unknown());
  EXPECT_EQ(copies[1]->memcpy().dst(), 0x7f0000000040u);
  const auto host_funcs = ops_of(a.trace, v1::Op::kHostFunc);
  ASSERT_EQ(host_funcs.size(), 1u);
  EXPECT_EQ(string_of(a.trace, host_funcs[0]->host_func().name()), "host function@0x401234");
  EXPECT_NE(host_funcs[0]->stream(), 0u);
  Validator v;
  v.check(a.trace, 0);
  EXPECT_EQ(v.error_count(), 0u) << (v.errors().empty() ? "" : v.errors()[0].message);
}

}  // namespace
}  // namespace racetrack::capture::testing
