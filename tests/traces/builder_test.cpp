// TraceBuilder assigns what a hand-written trace should not have to: dense
// seq and ids, non-overlapping addresses, host times, NVTX paths.
#include "racetrack/traces/builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "racetrack/traces/tables.h"
#include "test_support.h"

namespace racetrack {
namespace {

using ::testing::ElementsAre;

TEST(Builder, HeaderDefaults) {
  TraceBuilder b;
  const v1::Chunk t = b.take();
  ASSERT_TRUE(t.has_header());
  EXPECT_EQ(t.header().format_version(), kFormatVersion);
  EXPECT_EQ(t.header().producer(), "racetrack-builder");
  EXPECT_EQ(t.header().rank(), -1);
  EXPECT_EQ(t.header().clock_domain(), v1::CLOCK_DOMAIN_SYNTHETIC);
  EXPECT_EQ(t.ops_size(), 0);
}

TEST(Builder, SeqIsDenseAndHostTimesAdvance) {
  TraceBuilder b;
  testing::add_standard_ops(b, 3);
  EXPECT_EQ(b.op_count(), static_cast<uint64_t>(3 * testing::kOpsPerIteration + testing::kTailOps));
  EXPECT_EQ(b.next_seq(), b.op_count() + 1);
  const v1::Chunk t = b.take();
  ASSERT_EQ(static_cast<uint64_t>(t.ops_size()), b.op_count());
  int64_t last_end = 0;
  for (int i = 0; i < t.ops_size(); ++i) {
    EXPECT_EQ(t.ops(i).seq(), static_cast<uint64_t>(i + 1));
    EXPECT_GE(t.ops(i).host_start(), last_end);
    EXPECT_GT(t.ops(i).host_end(), t.ops(i).host_start());
    last_end = t.ops(i).host_end();
  }
}

TEST(Builder, EntityIdsAreDenseFromOne) {
  const v1::Chunk t = testing::standard_trace(2);
  for (int i = 0; i < t.streams_size(); ++i) EXPECT_EQ(t.streams(i).id(), static_cast<uint32_t>(i + 1));
  for (int i = 0; i < t.events_size(); ++i) EXPECT_EQ(t.events(i).id(), static_cast<uint32_t>(i + 1));
  for (int i = 0; i < t.threads_size(); ++i) EXPECT_EQ(t.threads(i).id(), static_cast<uint32_t>(i + 1));
  for (int i = 0; i < t.regions_size(); ++i) EXPECT_EQ(t.regions(i).id(), static_cast<uint32_t>(i + 1));
  EXPECT_EQ(t.streams_size(), 4);
  EXPECT_EQ(t.events_size(), 2);
  EXPECT_EQ(t.threads_size(), 2);
  EXPECT_EQ(t.regions_size(), 4 + 2 + 2);  // X Y P Q, tmp0 tmp1, two segments
}

TEST(Builder, StringsAreInternedOnce) {
  TraceBuilder b;
  const uint32_t a = b.intern("gemm");
  const uint32_t c = b.intern("relu");
  EXPECT_EQ(b.intern("gemm"), a);
  EXPECT_NE(a, c);
  EXPECT_EQ(b.intern(""), 0u);  // "none"
  const StreamId s = b.stream("s", v1::ROLE_COMPUTE);
  b.kernel(s, "gemm", {}, {});
  b.kernel(s, "gemm", {}, {});
  const v1::Chunk t = b.take();
  EXPECT_THAT(t.strings(), ElementsAre("gemm", "relu", "s", "main"));
  EXPECT_EQ(t.ops(0).kernel().name(), a);
  EXPECT_EQ(t.ops(1).kernel().name(), a);
}

TEST(Builder, DistinctBuffersDoNotOverlap) {
  TraceBuilder b;
  std::vector<Buffer> buffers;
  for (uint64_t size : {1ull, 511ull, 512ull, 513ull, 4096ull, 1ull << 20, 3ull}) {
    buffers.push_back(b.device_buffer("d", size));
    buffers.push_back(b.pinned_buffer("p", size));
    buffers.push_back(b.pageable_buffer("h", size));
    buffers.push_back(b.alloc("a", size, v1::ORIGIN_POOL_ASYNC));
    buffers.push_back(b.alloc("ha", size, v1::ORIGIN_HOST_ALLOC));
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer& x = buffers[i];
    EXPECT_EQ(x.base % 512, 0u) << "buffer " << i << " is not aligned";
    for (size_t j = i + 1; j < buffers.size(); ++j) {
      const Buffer& y = buffers[j];
      const bool overlap = x.base < y.base + y.size && y.base < x.base + x.size;
      EXPECT_FALSE(overlap) << "buffers " << i << " and " << j;
    }
  }
  // Regions match the handles.
  const v1::Chunk t = b.take();
  ASSERT_EQ(static_cast<size_t>(t.regions_size()), buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    EXPECT_EQ(t.regions(static_cast<int>(i)).id(), buffers[i].region);
    EXPECT_EQ(t.regions(static_cast<int>(i)).base(), buffers[i].base);
    EXPECT_EQ(t.regions(static_cast<int>(i)).size(), buffers[i].size);
    EXPECT_EQ(t.regions(static_cast<int>(i)).space(), buffers[i].space);
  }
}

TEST(Builder, AllocOriginPicksTheSpaceAndSyncBehaviour) {
  TraceBuilder b;
  const StreamId s = b.stream("s", v1::ROLE_COMPUTE);
  const Buffer dev = b.alloc("dev", 64, v1::ORIGIN_CUDA_MALLOC);
  const Buffer pin = b.alloc("pin", 64, v1::ORIGIN_HOST_ALLOC);
  const Buffer page = b.alloc("page", 64, v1::ORIGIN_HOST_MALLOC);
  const Buffer pool = b.alloc("pool", 64, v1::ORIGIN_POOL_ASYNC, s);
  EXPECT_EQ(dev.space, v1::SPACE_DEVICE);
  EXPECT_EQ(pin.space, v1::SPACE_PINNED_HOST);
  EXPECT_EQ(page.space, v1::SPACE_PAGEABLE_HOST);
  EXPECT_EQ(pool.space, v1::SPACE_DEVICE);
  const v1::Chunk t = b.take();
  ASSERT_EQ(t.ops_size(), 4);
  EXPECT_TRUE(t.ops(0).alloc().device_sync());
  EXPECT_TRUE(t.ops(1).alloc().device_sync());
  EXPECT_FALSE(t.ops(2).alloc().device_sync());
  EXPECT_FALSE(t.ops(3).alloc().device_sync());
  EXPECT_FALSE(t.ops(0).alloc().stream_ordered());
  EXPECT_EQ(t.ops(0).stream(), 0u);
  EXPECT_TRUE(t.ops(3).alloc().stream_ordered());
  EXPECT_EQ(t.ops(3).stream(), s.id);
  EXPECT_EQ(t.ops(3).alloc().region(), pool.region);
  EXPECT_EQ(t.regions(3).origin(), v1::ORIGIN_POOL_ASYNC);
}

TEST(Builder, AllocAtReusesTheBase) {
  TraceBuilder b;
  const StreamId s = b.stream("s", v1::ROLE_COMPUTE);
  const Buffer old = b.alloc("old", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, s);
  b.free(old, s);
  const Buffer reused = b.alloc("new", 1024, v1::ORIGIN_FRAMEWORK_BLOCK, s, &old);
  const Buffer fresh = b.alloc("fresh", 1024, v1::ORIGIN_FRAMEWORK_BLOCK, s);
  EXPECT_EQ(reused.base, old.base);
  EXPECT_NE(reused.region, old.region);
  EXPECT_EQ(reused.size, 1024u);
  EXPECT_GE(fresh.base, old.base + old.size) << "reuse must not move the allocation cursor back";
  const v1::Chunk t = b.take();
  ASSERT_EQ(t.ops_size(), 4);
  EXPECT_EQ(t.ops(1).free().region(), old.region);
  EXPECT_TRUE(t.ops(1).free().stream_ordered());
  EXPECT_EQ(t.ops(2).alloc().region(), reused.region);
  EXPECT_EQ(t.regions(static_cast<int>(reused.region - 1)).base(), old.base);
}

TEST(Builder, CudaFreeSynchronisesTheDevice) {
  TraceBuilder b;
  const Buffer seg = b.alloc("seg", 64, v1::ORIGIN_CUDA_MALLOC);
  b.cuda_free(seg);
  const v1::Chunk t = b.take();
  ASSERT_EQ(t.ops_size(), 2);
  EXPECT_TRUE(t.ops(1).has_free());
  EXPECT_TRUE(t.ops(1).free().device_sync());
  EXPECT_FALSE(t.ops(1).free().stream_ordered());
  EXPECT_EQ(t.ops(1).stream(), 0u);
}

TEST(Builder, NvtxRangesJoinIntoPaths) {
  TraceBuilder b;
  const StreamId s = b.stream("s", v1::ROLE_COMPUTE);
  b.kernel(s, "outside", {}, {});
  b.push_range("fwd");
  b.kernel(s, "k1", {}, {});
  b.push_range("layer0");
  b.kernel(s, "k2", {}, {});
  b.pop_range();
  b.push_range("layer1");
  b.kernel(s, "k3", {}, {});
  b.pop_range();
  b.pop_range();
  b.kernel(s, "k4", {}, {});
  b.pop_range();  // more pops than pushes are ignored
  b.kernel(s, "k5", {}, {});
  const v1::Chunk t = b.take();
  TraceTables tables;
  tables.add(t);
  std::vector<std::string> paths;
  for (const v1::Op& op : t.ops()) paths.emplace_back(tables.string(op.nvtx()));
  EXPECT_THAT(paths, ElementsAre("", "fwd", "fwd/layer0", "fwd/layer1", "", ""));
  EXPECT_EQ(t.ops(0).nvtx(), 0u);
  EXPECT_EQ(t.ops(4).nvtx(), 0u);
}

TEST(Builder, ThreadsAreCreatedOnDemandAndSwitched) {
  TraceBuilder b;
  b.sync_device();  // no thread yet: "main" is created
  const ThreadId worker = b.thread("worker");
  b.sync_device();
  b.on_thread(worker);
  b.sync_device();
  const v1::Chunk t = b.take();
  ASSERT_EQ(t.threads_size(), 2);
  TraceTables tables;
  tables.add(t);
  EXPECT_EQ(tables.string(t.threads(0).name()), "main");
  EXPECT_EQ(t.ops(0).thread(), 1u);
  EXPECT_EQ(t.ops(1).thread(), 1u);
  EXPECT_EQ(t.ops(2).thread(), worker.id);
  EXPECT_NE(t.threads(0).os_tid(), t.threads(1).os_tid());
}

TEST(Builder, KernelAccessesFollowTheOptions) {
  TraceBuilder b;
  const StreamId s = b.stream("s", v1::ROLE_COMPUTE);
  const Buffer x = b.device_buffer("x", 1024);
  const Buffer y = b.device_buffer("y", 1024);
  b.kernel(s, "exact", {x.slice(256, 128)}, {y});
  b.kernel(s, "unknown", {x}, {y}, {.precision = v1::PRECISION_BLOCK, .known_modes = false});
  b.kernel(s, "raw", {x}, {y}, {.raw_words_only = true});
  b.kernel(s, "timed", {}, {y}, {.duration_ns = 1234});
  const v1::Chunk t = b.take();

  const v1::Kernel& exact = t.ops(0).kernel();
  EXPECT_THAT(exact.arg_words(), ElementsAre(x.base + 256, y.base));
  ASSERT_EQ(exact.accesses_size(), 2);
  EXPECT_EQ(exact.accesses(0).region(), x.region);
  EXPECT_EQ(exact.accesses(0).offset(), 256u);
  EXPECT_EQ(exact.accesses(0).size(), 128u);
  EXPECT_EQ(exact.accesses(0).mode(), v1::MODE_READ);
  EXPECT_EQ(exact.accesses(0).arg_index(), 1u);
  EXPECT_EQ(exact.accesses(1).mode(), v1::MODE_WRITE);
  EXPECT_EQ(exact.accesses(1).arg_index(), 2u);
  EXPECT_EQ(exact.grid_size(), 3);
  EXPECT_EQ(exact.block_size(), 3);
  EXPECT_FALSE(t.ops(0).has_device_start());

  const v1::Kernel& unknown = t.ops(1).kernel();
  ASSERT_EQ(unknown.accesses_size(), 2);
  for (const v1::Access& a : unknown.accesses()) {
    EXPECT_EQ(a.mode(), v1::MODE_UNKNOWN);
    EXPECT_EQ(a.precision(), v1::PRECISION_BLOCK);
  }

  EXPECT_EQ(t.ops(2).kernel().accesses_size(), 0);
  EXPECT_EQ(t.ops(2).kernel().arg_words_size(), 2);

  const v1::Op& timed = t.ops(3);
  ASSERT_TRUE(timed.has_device_start());
  ASSERT_TRUE(timed.has_device_end());
  EXPECT_EQ(timed.device_end() - timed.device_start(), 1234);
  EXPECT_GE(timed.device_start(), timed.host_start());
}

TEST(Builder, MemcpyDirectionAndSizeFollowTheSpans) {
  TraceBuilder b;
  const StreamId s = b.stream("s", v1::ROLE_COMPUTE);
  const Buffer d = b.device_buffer("d", 4096);
  const Buffer d2 = b.device_buffer("d2", 100);
  const Buffer p = b.pinned_buffer("p", 2048);
  const Buffer h = b.pageable_buffer("h", 4096);
  b.memcpy(s, p, d);                        // D2H, min(2048, 4096)
  b.memcpy(s, d.slice(100, 50), p, false);  // H2D
  b.memcpy(s, d2, d);                       // D2D
  b.memcpy(s, h, p);                        // H2H
  const v1::Chunk t = b.take();
  EXPECT_EQ(t.ops(0).memcpy().direction(), v1::COPY_D2H);
  EXPECT_EQ(t.ops(0).memcpy().bytes(), 2048u);
  EXPECT_EQ(t.ops(0).memcpy().dst(), p.base);
  EXPECT_EQ(t.ops(0).memcpy().src(), d.base);
  EXPECT_EQ(t.ops(0).memcpy().dst_space(), v1::SPACE_PINNED_HOST);
  EXPECT_TRUE(t.ops(0).memcpy().async());
  EXPECT_EQ(t.ops(1).memcpy().direction(), v1::COPY_H2D);
  EXPECT_EQ(t.ops(1).memcpy().dst(), d.base + 100);
  EXPECT_EQ(t.ops(1).memcpy().bytes(), 50u);
  EXPECT_FALSE(t.ops(1).memcpy().async());
  EXPECT_EQ(t.ops(2).memcpy().direction(), v1::COPY_D2D);
  EXPECT_EQ(t.ops(2).memcpy().bytes(), 100u);
  EXPECT_EQ(t.ops(3).memcpy().direction(), v1::COPY_H2H);
}

TEST(Builder, StreamsEventsAndSyncs) {
  TraceBuilder b;
  const StreamId s = b.stream("s", v1::ROLE_D2H, v1::STREAM_BLOCKING, -2);
  const StreamId legacy = b.legacy_stream();
  const EventId e = b.event("e");
  b.record(e, s);
  b.wait(legacy, e);
  b.sync(s);
  b.sync_event(e);
  b.sync_device();
  b.query(e, true);
  b.query_stream(s, false);
  const v1::Chunk t = b.take();
  EXPECT_EQ(t.streams(0).role(), v1::ROLE_D2H);
  EXPECT_EQ(t.streams(0).flags(), v1::STREAM_BLOCKING);
  EXPECT_EQ(t.streams(0).priority(), -2);
  EXPECT_EQ(t.streams(1).flags(), v1::STREAM_LEGACY_DEFAULT);
  EXPECT_EQ(t.streams(1).name(), 0u);
  EXPECT_EQ(t.ops(0).record().event(), e.id);
  EXPECT_EQ(t.ops(0).stream(), s.id);
  EXPECT_EQ(t.ops(1).wait().event(), e.id);
  EXPECT_EQ(t.ops(1).stream(), legacy.id);
  EXPECT_EQ(t.ops(2).sync().kind(), v1::SYNC_STREAM);
  EXPECT_EQ(t.ops(2).stream(), s.id);
  EXPECT_EQ(t.ops(3).sync().kind(), v1::SYNC_EVENT);
  EXPECT_EQ(t.ops(3).sync().event(), e.id);
  EXPECT_EQ(t.ops(3).stream(), 0u);
  EXPECT_EQ(t.ops(4).sync().kind(), v1::SYNC_DEVICE);
  EXPECT_EQ(t.ops(5).query().kind(), v1::QUERY_EVENT);
  EXPECT_TRUE(t.ops(5).query().ready());
  EXPECT_EQ(t.ops(6).query().kind(), v1::QUERY_STREAM);
  EXPECT_FALSE(t.ops(6).query().ready());
  EXPECT_EQ(t.ops(6).stream(), s.id);
}

TEST(Builder, HostAccessesAndFunctions) {
  TraceBuilder b;
  const StreamId s = b.stream("s", v1::ROLE_COMPUTE);
  const Buffer p = b.pinned_buffer("p", 256);
  b.host_read(p.slice(8, 16));
  b.host_write(p);
  b.host_func(s, "cb", {p.slice(0, 4)}, {p.slice(4, 4)});
  b.mark("here");
  const v1::Chunk t = b.take();
  const v1::Access& read = t.ops(0).host_access().accesses(0);
  EXPECT_EQ(read.mode(), v1::MODE_READ);
  EXPECT_EQ(read.region(), p.region);
  EXPECT_EQ(read.offset(), 8u);
  EXPECT_EQ(read.size(), 16u);
  EXPECT_EQ(t.ops(0).stream(), 0u);
  EXPECT_EQ(t.ops(1).host_access().accesses(0).mode(), v1::MODE_WRITE);
  EXPECT_EQ(t.ops(1).host_access().accesses(0).size(), 256u);
  const v1::HostFunc& f = t.ops(2).host_func();
  ASSERT_EQ(f.accesses_size(), 2);
  EXPECT_EQ(f.accesses(0).mode(), v1::MODE_READ);
  EXPECT_EQ(f.accesses(1).mode(), v1::MODE_WRITE);
  EXPECT_EQ(f.accesses(1).offset(), 4u);
  EXPECT_EQ(t.ops(2).stream(), s.id);
  EXPECT_EQ(t.ops(3).annotation().kind(), v1::ANNOTATE_MARK);
  EXPECT_NE(t.ops(3).annotation().text(), 0u);
}

TEST(Builder, TakeLeavesAnEmptyBuilder) {
  TraceBuilder b;
  b.sync_device();
  EXPECT_EQ(b.take().ops_size(), 1);
  const v1::Chunk again = b.take();
  EXPECT_EQ(again.ops_size(), 0);
  EXPECT_EQ(again.strings_size(), 0);
}

TEST(Builder, LastOpCanBeTweaked) {
  TraceBuilder b;
  b.sync_device();
  b.last_op().set_correlation_id(99);
  b.sync_device();
  const v1::Chunk t = b.take();
  EXPECT_EQ(t.ops(0).correlation_id(), 99u);
  EXPECT_EQ(t.ops(1).correlation_id(), 0u);
}

}  // namespace
}  // namespace racetrack
