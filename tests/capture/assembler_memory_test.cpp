// Memory in assembled traces: allocation calls become regions with Alloc and
// Free ops, MEMORY2 records add module globals and allocations made inside
// other calls, and copies get the spaces of both ends from their record or,
// without one, from the live regions.
#include <gtest/gtest.h>

#include <algorithm>

#include "assembler_test_support.h"

namespace racetrack::capture::testing {
namespace {

using racetrack::testing::TempDir;

const v1::Region& region_of(const v1::Chunk& trace, uint32_t id) {
  return trace.regions(static_cast<int>(id) - 1);
}

TEST(AssemblerMemory, CudaMallocThenFree) {
  FakeProgram p;
  p.alloc(ApiKind::kMalloc, 0x10000, 4096);
  p.launch(kLegacy, {0x10000});
  p.alloc(ApiKind::kFree, 0x10000, 0);
  p.alloc(ApiKind::kMalloc, 0x10000, 8192);  // the address again
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 4);
  ASSERT_TRUE(a.trace.ops(0).has_alloc());
  const v1::Region& r = region_of(a.trace, a.trace.ops(0).alloc().region());
  EXPECT_EQ(r.space(), v1::SPACE_DEVICE);
  EXPECT_EQ(r.origin(), v1::ORIGIN_CUDA_MALLOC);
  EXPECT_EQ(r.base(), 0x10000u);
  EXPECT_EQ(r.size(), 4096u);
  EXPECT_EQ(r.alloc_seq(), a.trace.ops(0).seq());
  EXPECT_FALSE(a.trace.ops(0).alloc().stream_ordered());
  ASSERT_TRUE(a.trace.ops(2).has_free());
  EXPECT_EQ(a.trace.ops(2).free().region(), r.id());
  EXPECT_TRUE(a.trace.ops(2).free().device_sync());
  ASSERT_TRUE(a.trace.ops(3).has_alloc());
  EXPECT_NE(a.trace.ops(3).alloc().region(), r.id());
  EXPECT_EQ(region_of(a.trace, a.trace.ops(3).alloc().region()).size(), 8192u);
}

TEST(AssemblerMemory, StreamOrderedAllocationsLiveOnTheirStream) {
  FakeProgram p;
  const FakeStream s = user_stream(0);
  p.alloc(ApiKind::kMallocAsync, 0x302000000, 1024, s);
  p.alloc(ApiKind::kFreeAsync, 0x302000000, 0, s);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 2);
  const v1::Op& alloc = a.trace.ops(0);
  EXPECT_TRUE(alloc.alloc().stream_ordered());
  EXPECT_NE(alloc.stream(), 0u);
  EXPECT_EQ(region_of(a.trace, alloc.alloc().region()).origin(), v1::ORIGIN_POOL_ASYNC);
  const v1::Op& free = a.trace.ops(1);
  EXPECT_TRUE(free.free().stream_ordered());
  EXPECT_FALSE(free.free().device_sync());
  EXPECT_EQ(free.stream(), alloc.stream());
  EXPECT_EQ(free.free().region(), alloc.alloc().region());
}

TEST(AssemblerMemory, VmmUnmapFreesEveryMappingInItsRange) {
  FakeProgram p;
  p.alloc(ApiKind::kVmmMap, 0x1000000, 0x200000);
  p.alloc(ApiKind::kVmmMap, 0x1200000, 0x200000);
  p.alloc(ApiKind::kVmmMap, 0x1400000, 0x200000);
  p.alloc(ApiKind::kVmmUnmap, 0x1000000, 0x400000);
  p.alloc(ApiKind::kVmmUnmap, 0x1000000, 0x400000);  // nothing left there
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 5);
  EXPECT_EQ(region_of(a.trace, a.trace.ops(0).alloc().region()).origin(), v1::ORIGIN_VMM_MAP);
  EXPECT_EQ(a.trace.ops(3).free().region(), a.trace.ops(0).alloc().region());
  EXPECT_EQ(a.trace.ops(4).free().region(), a.trace.ops(1).alloc().region());
  EXPECT_EQ(a.trace.ops(3).correlation_id(), a.trace.ops(4).correlation_id());
  EXPECT_EQ(a.stats.unknown_frees, 1u);
}

TEST(AssemblerMemory, PinnedHostMemory) {
  FakeProgram p;
  p.alloc(ApiKind::kHostAlloc, 0x90000, 4096);
  p.alloc(ApiKind::kHostRegister, 0x7f0000000000, 1 << 20);
  p.alloc(ApiKind::kHostUnregister, 0x7f0000000000, 0);
  p.alloc(ApiKind::kHostFree, 0x90000, 0);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 4);
  const v1::Region& host_alloc = region_of(a.trace, a.trace.ops(0).alloc().region());
  EXPECT_EQ(host_alloc.space(), v1::SPACE_PINNED_HOST);
  EXPECT_EQ(host_alloc.origin(), v1::ORIGIN_HOST_ALLOC);
  const v1::Region& registered = region_of(a.trace, a.trace.ops(1).alloc().region());
  EXPECT_EQ(registered.space(), v1::SPACE_PINNED_HOST);
  EXPECT_EQ(registered.origin(), v1::ORIGIN_HOST_MALLOC);
  EXPECT_EQ(a.trace.ops(2).free().region(), registered.id());
  EXPECT_FALSE(a.trace.ops(2).free().device_sync());
  EXPECT_EQ(a.trace.ops(3).free().region(), host_alloc.id());
  EXPECT_TRUE(a.trace.ops(3).free().device_sync());
  // Both allocations are calls --assume alloc-syncs=yes makes joins.
  EXPECT_TRUE(a.trace.ops(0).alloc().device_sync());
  EXPECT_TRUE(a.trace.ops(1).alloc().device_sync());
}

// docs/ordering-rules.md 6g: cudaFree of pool memory "will not perform any
// implicit synchronization"; of cudaMalloc memory it may.
TEST(AssemblerMemory, CudaFreeOfPoolMemoryDoesNotSynchronise) {
  FakeProgram p;
  const FakeStream s = user_stream(0);
  p.alloc(ApiKind::kMallocAsync, 0x302000000, 1024, s);
  p.alloc(ApiKind::kFree, 0x302000000, 0);
  p.alloc(ApiKind::kMalloc, 0x10000, 4096);
  p.alloc(ApiKind::kFree, 0x10000, 0);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 4);
  EXPECT_FALSE(a.trace.ops(0).alloc().device_sync());  // stream-ordered
  EXPECT_FALSE(a.trace.ops(1).free().stream_ordered());
  EXPECT_FALSE(a.trace.ops(1).free().device_sync());
  EXPECT_TRUE(a.trace.ops(2).alloc().device_sync());
  EXPECT_TRUE(a.trace.ops(3).free().device_sync());
}

TEST(AssemblerMemory, FreesOfUnknownAddressesAreDropped) {
  FakeProgram p;
  p.alloc(ApiKind::kFree, 0xdead0000, 0);
  p.alloc(ApiKind::kFree, 0, 0);  // cudaFree(NULL): nothing to free, nothing wrong
  p.alloc(ApiKind::kFreeAsync, 0xbeef0000, 0, user_stream(0));
  p.call(ApiKind::kDeviceSync);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 1);
  EXPECT_TRUE(a.trace.ops(0).has_sync());
  EXPECT_EQ(a.stats.unknown_frees, 2u);
}

TEST(AssemblerMemory, Memory2RecordsAddGlobalsAndAllocationsInsideOtherCalls) {
  FakeProgram p;
  MemoryRecord global;
  global.memory_kind = MemoryKind::kDeviceStatic;
  global.address = 0x7000000;
  global.bytes = 256;
  p.records.push_back(global);
  p.records.push_back(global);  // the same module reported twice
  const uint64_t malloc_correlation = p.alloc(ApiKind::kMalloc, 0x10000, 4096).correlation;
  MemoryRecord confirmation;
  confirmation.correlation = static_cast<uint32_t>(malloc_correlation);
  confirmation.memory_kind = MemoryKind::kDevice;
  confirmation.address = 0x10000;
  confirmation.bytes = 4096;
  p.records.push_back(confirmation);
  const uint64_t launch = p.launch(kLegacy, {0x20000});
  MemoryRecord inside = confirmation;  // memory a launch allocated (lazy module load, a library)
  inside.correlation = static_cast<uint32_t>(launch);
  inside.address = 0x20000;
  inside.bytes = 512;
  p.records.insert(p.records.end() - 1, inside);  // before the kernel record releases the launch
  MemoryRecord stray = inside;
  stray.correlation = 5000;
  stray.address = 0x40000;
  p.records.push_back(stray);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));

  ASSERT_EQ(a.trace.regions_size(), 3);
  const auto global_region =
      std::find_if(a.trace.regions().begin(), a.trace.regions().end(),
                   [](const v1::Region& r) { return r.origin() == v1::ORIGIN_STATIC; });
  ASSERT_NE(global_region, a.trace.regions().end());
  EXPECT_EQ(global_region->alloc_seq(), 0u);
  EXPECT_EQ(global_region->base(), 0x7000000u);
  EXPECT_EQ(global_region->size(), 256u);
  ASSERT_EQ(a.trace.ops_size(), 3);
  EXPECT_TRUE(a.trace.ops(0).has_alloc());
  ASSERT_TRUE(a.trace.ops(1).has_alloc());  // the launch's allocation, before the launch
  const v1::Region& nested = region_of(a.trace, a.trace.ops(1).alloc().region());
  EXPECT_EQ(nested.base(), 0x20000u);
  EXPECT_EQ(nested.size(), 512u);
  EXPECT_EQ(a.trace.ops(1).correlation_id(), launch);
  EXPECT_TRUE(a.trace.ops(2).has_kernel());
  EXPECT_EQ(a.stats.unmatched_records, 1u);
}

TEST(AssemblerMemory, CopySpacesComeFromTheRecord) {
  FakeProgram p;
  p.memcpy(kLegacy, 0x7fff0000, 0x10000, 64, 2, MemoryKind::kPageable, MemoryKind::kDevice);
  p.memcpy(kLegacy, 0x90000, 0x10000, 64, 2, MemoryKind::kPinned, MemoryKind::kDevice);
  p.memcpy(kLegacy, 0x10000, 0x20000, 64, 4, MemoryKind::kDevice, MemoryKind::kManaged);  // cudaMemcpyDefault
  std::get<CopyRecord>(p.records.back()).copy_kind = 8;
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  ASSERT_EQ(a.trace.ops_size(), 3);
  const v1::Memcpy& pageable = a.trace.ops(0).memcpy();
  EXPECT_EQ(pageable.direction(), v1::COPY_D2H);
  EXPECT_EQ(pageable.dst_space(), v1::SPACE_PAGEABLE_HOST);
  EXPECT_EQ(pageable.src_space(), v1::SPACE_DEVICE);
  EXPECT_TRUE(pageable.async());
  EXPECT_EQ(pageable.bytes(), 64u);
  EXPECT_EQ(a.trace.ops(1).memcpy().dst_space(), v1::SPACE_PINNED_HOST);
  EXPECT_EQ(a.trace.ops(2).memcpy().direction(), v1::COPY_D2D);
  EXPECT_EQ(a.trace.ops(2).memcpy().src_space(), v1::SPACE_MANAGED);
  EXPECT_TRUE(a.trace.ops(0).has_device_start());
}

TEST(AssemblerMemory, WithoutARecordCopySpacesComeFromLiveRegions) {
  FakeProgram p;
  p.alloc(ApiKind::kHostAlloc, 0x90000, 4096);
  p.alloc(ApiKind::kMalloc, 0x10000, 4096);
  p.memcpy(kLegacy, 0x90100, 0x10000, 64, 2, MemoryKind::kUnknown, MemoryKind::kUnknown);  // into pinned
  p.memcpy(kLegacy, 0x7fff0000, 0x10000, 64, 2, MemoryKind::kUnknown, MemoryKind::kUnknown);
  p.memcpy(kLegacy, 0x10000, 0x90000, 64, 1, MemoryKind::kUnknown, MemoryKind::kUnknown);
  p.memcpy(kLegacy, 0x7fff0000, 0x10000, 64, 4, MemoryKind::kUnknown, MemoryKind::kUnknown);  // default
  p.records.clear();
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto copies = ops_of(a.trace, v1::Op::kMemcpy);
  ASSERT_EQ(copies.size(), 4u);
  EXPECT_EQ(copies[0]->memcpy().dst_space(), v1::SPACE_PINNED_HOST);
  EXPECT_EQ(copies[0]->memcpy().src_space(), v1::SPACE_DEVICE);
  EXPECT_EQ(copies[1]->memcpy().dst_space(), v1::SPACE_PAGEABLE_HOST);
  EXPECT_EQ(copies[2]->memcpy().direction(), v1::COPY_H2D);
  EXPECT_EQ(copies[2]->memcpy().src_space(), v1::SPACE_PINNED_HOST);
  EXPECT_EQ(copies[2]->memcpy().dst_space(), v1::SPACE_DEVICE);
  EXPECT_EQ(copies[3]->memcpy().direction(), v1::COPY_DEFAULT);
  EXPECT_EQ(copies[3]->memcpy().dst_space(), v1::SPACE_PAGEABLE_HOST);
  EXPECT_EQ(copies[3]->memcpy().src_space(), v1::SPACE_DEVICE);
  EXPECT_FALSE(copies[0]->has_device_start());
  EXPECT_EQ(a.stats.ops_without_record, 4u);
}

TEST(AssemblerMemory, MemsetsWriteDeviceMemoryUnlessARegionSaysOtherwise) {
  FakeProgram p;
  p.alloc(ApiKind::kHostAlloc, 0x90000, 4096);
  ApiEvent& device = p.call(ApiKind::kMemset, user_stream(0));
  device.dst = 0x10000;
  device.bytes = 256;
  device.value = 7;
  device.flags = kFlagAsync;
  ApiEvent& pinned = p.call(ApiKind::kMemset, user_stream(0));
  pinned.dst = 0x90000;
  pinned.bytes = 16;
  MemsetRecord record;
  record.correlation = static_cast<uint32_t>(p.events[1].event.correlation);
  record.context_id = kContext;
  record.stream_id = 13;
  record.start = kStart + 50'000;
  record.end = kStart + 60'000;
  p.records.push_back(record);
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"));
  const auto memsets = ops_of(a.trace, v1::Op::kMemset);
  ASSERT_EQ(memsets.size(), 2u);
  EXPECT_EQ(memsets[0]->memset().space(), v1::SPACE_DEVICE);
  EXPECT_EQ(memsets[0]->memset().value(), 7u);
  EXPECT_EQ(memsets[0]->memset().bytes(), 256u);
  EXPECT_TRUE(memsets[0]->memset().async());
  EXPECT_EQ(memsets[0]->device_start(), 50'000);
  EXPECT_EQ(memsets[1]->memset().space(), v1::SPACE_PINNED_HOST);
}

}  // namespace
}  // namespace racetrack::capture::testing
