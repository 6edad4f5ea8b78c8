// The host-side rules of docs/ordering-rules.md (6a-6g) and the assumptions
// that choose a reading where the CUDA documentation says "might" or "may":
// each test fails when its rule or assumption is flipped. The sample pairs
// in traces/samples cover the default readings; these cover the rest.
#include <gtest/gtest.h>

#include "check_test_support.h"
#include "racetrack/hb/assumptions.h"
#include "racetrack/traces/builder.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::check_test {
namespace {

using race::HazardClass;
using race::HazardKind;

constexpr HazardKind kRaw = HazardKind::kRaw;
constexpr HazardKind kWar = HazardKind::kWar;
constexpr HazardClass kHost = HazardClass::kHostVsDevice;
constexpr HazardClass kCopyCompute = HazardClass::kCopyVsCompute;

const std::string kSamples = RACETRACK_SAMPLES_DIR;

v1::Chunk sample(const std::string& file) {
  auto trace = load_trace(kSamples + "/" + file);
  EXPECT_TRUE(trace.ok()) << trace.error().describe();
  return trace.ok() ? *trace : v1::Chunk{};
}

race::CheckOptions assuming(const std::string& setting) {
  race::CheckOptions options = keep_all_options();
  const Status applied = hb::apply_assumption(setting, options.assumptions);
  EXPECT_TRUE(applied.ok()) << applied.error().message;
  return options;
}

// The samples' default readings, flipped.
TEST(Assumptions, PageableAsyncH2DAsyncMakesTheRefillARace) {
  const v1::Chunk trace = sample("pageable_async_h2d.clean.pbtxt");
  expect_clean(trace);
  expect_hazards(trace, {{1, 2, kWar, kHost}}, assuming("pageable-async-h2d=async"));
}

TEST(Assumptions, PageableAsyncD2HAsyncMakesTheReadARace) {
  const v1::Chunk trace = sample("pageable_d2h.clean.pbtxt");
  expect_clean(trace);
  expect_hazards(trace, {{2, 3, kRaw, kHost, 1, 0}}, assuming("pageable-async-d2h=async"));
}

TEST(Assumptions, FreeSyncsNoLeavesTheReuseUnordered) {
  const v1::Chunk trace = sample("cudafree_device_sync.clean.pbtxt");
  expect_clean(trace);
  const race::CheckResult r = check_all(trace, assuming("free-syncs=no"));
  EXPECT_FALSE(r.all.empty());
}

TEST(Assumptions, ParsedByNameWithClearErrors) {
  hb::Assumptions a;
  EXPECT_EQ(hb::describe(a), (std::vector<std::string>{"pageable-async-d2h=sync", "pageable-async-h2d=staged",
                                                       "free-syncs=yes", "alloc-syncs=no"}));
  ASSERT_TRUE(hb::apply_assumption("alloc-syncs=yes", a).ok());
  EXPECT_TRUE(a.alloc_syncs);
  const Status unknown = hb::apply_assumption("free-sync=no", a);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("no assumption is called 'free-sync'"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("free-syncs=yes|no"), std::string::npos);
  const Status bad_value = hb::apply_assumption("free-syncs=maybe", a);
  ASSERT_FALSE(bad_value.ok());
  EXPECT_NE(bad_value.error().message.find("free-syncs is one of yes|no"), std::string::npos);
  EXPECT_FALSE(hb::apply_assumption("free-syncs", a).ok());
}

TEST(Assumptions, ResultSaysWhichItHoldsUnder) {
  const race::CheckResult r = check_all(sample("pageable_async_h2d.clean.pbtxt"), assuming("free-syncs=no"));
  EXPECT_FALSE(r.assumptions.free_syncs);
  EXPECT_TRUE(r.assumptions.pageable_async_h2d_staged);
}

struct Fixture {
  TraceBuilder b;
  StreamId legacy = b.legacy_stream();
  StreamId blocking = b.stream("blocking", v1::ROLE_D2H, v1::STREAM_BLOCKING);
  StreamId side = b.stream("side", v1::ROLE_COMPUTE, v1::STREAM_NON_BLOCKING);
  Buffer x = b.device_buffer("X", 4096);
  Buffer p = b.pinned_buffer("P", 4096);
  Buffer h = b.pageable_buffer("H", 4096);
};

// Rule 6a: blocking copies join the host where the call returns after the
// copy (D2H, pinned H2D, H2H) and nowhere else (D2D).
TEST(BlockingCopy, DeviceToHostJoins) {
  Fixture f;
  f.b.memcpy(f.side, f.p, f.x, /*async=*/false);
  f.b.host_read(f.p);
  expect_clean(f.b.take());
}

TEST(BlockingCopy, PinnedHostToDeviceJoins) {
  Fixture f;
  f.b.memcpy(f.side, f.x, f.p, /*async=*/false);
  f.b.kernel(f.legacy, "overwrite", {}, {f.x});  // enqueued after the call returned
  expect_clean(f.b.take());
}

TEST(BlockingCopy, DeviceToDeviceDoesNotJoin) {
  Fixture f;
  Buffer y = f.b.device_buffer("Y", 4096);
  f.b.memcpy(f.legacy, y, f.x, /*async=*/false);
  f.b.kernel(f.side, "consume", {y}, {});
  expect_hazards(f.b.take(), {{1, 2, kRaw, kCopyCompute, 1, 0}});
}

// Rule 6b: staged. The call waited for the stream's earlier work and read
// the source, but not for its own device write.
TEST(BlockingCopy, PageableHostToDeviceWaitsForEarlierStreamWork) {
  Fixture f;
  f.b.memcpy(f.side, f.p, f.x, /*async=*/true);   // seq 1: D2H into pinned P on `side`
  f.b.memcpy(f.side, f.x, f.h, /*async=*/false);  // seq 2: staged: waits for seq 1 first
  f.b.host_read(f.p);                             // seq 3: ordered after seq 1
  f.b.host_write(f.h);                            // seq 4: ordered after seq 2's read of H
  expect_clean(f.b.take());
}

// Rule 6c: the async form from pageable memory is staged by default, a
// plain stream op with pageable-async-h2d=async.
TEST(AsyncCopy, PageableHostToDeviceStagedWaitsForEarlierStreamWork) {
  Fixture f;
  f.b.memcpy(f.side, f.p, f.x, /*async=*/true);
  f.b.memcpy(f.side, f.x, f.h, /*async=*/true);
  f.b.host_read(f.p);
  const v1::Chunk trace = f.b.take();
  expect_clean(trace);
  expect_hazards(trace, {{1, 3, kRaw, kHost, 1, 0}}, assuming("pageable-async-h2d=async"));
}

TEST(AsyncCopy, HostToHostJoinsEitherForm) {
  Fixture f;
  f.b.memcpy(f.side, f.h, f.p, /*async=*/true);
  f.b.host_write(f.p);
  expect_clean(f.b.take());
}

// Rule 6d: memsets.
TEST(BlockingMemset, ManagedTargetJoins) {
  Fixture f;
  Buffer m = f.b.alloc("M", 4096, v1::ORIGIN_CUDA_MALLOC);
  f.b.memset(f.side, m);
  v1::Memset& memset = *f.b.last_op().mutable_memset();
  memset.set_space(v1::SPACE_MANAGED);
  memset.set_async(false);
  f.b.kernel(f.legacy, "overwrite", {}, {m});
  expect_clean(f.b.take());
}

TEST(BlockingMemset, AsyncFormNeverJoins) {
  Fixture f;
  f.b.memset(f.side, f.p);  // cudaMemsetAsync on pinned memory
  f.b.host_read(f.p);
  expect_hazards(f.b.take(), {{1, 2, kRaw, kHost}});
}

// Rule 6e: a successful query of the legacy stream waits for the blocking
// streams; a failed one, or a non-blocking stream, does not.
TEST(LegacyStream, SuccessfulQueryCoversBlockingStreams) {
  for (const bool ready : {true, false}) {
    Fixture f;
    f.b.memcpy(f.blocking, f.p, f.x, /*async=*/true);
    f.b.query_stream(f.legacy, ready);
    f.b.host_read(f.p);
    if (ready)
      expect_clean(f.b.take());
    else
      expect_hazards(f.b.take(), {{1, 3, kRaw, kHost, 1, 0}});
  }
}

TEST(LegacyStream, SyncSkipsNonBlockingStreams) {
  Fixture f;
  f.b.memcpy(f.side, f.p, f.x, /*async=*/true);
  f.b.sync(f.legacy);
  f.b.host_read(f.p);
  expect_hazards(f.b.take(), {{1, 3, kRaw, kHost, 1, 0}});
}

// Rule 6f: a blocking peer copy orders later work on its devices, even on
// non-blocking streams; the async form does not.
TEST(PeerCopy, BlockingFormOrdersLaterWorkOfBothDevices) {
  for (const bool async : {false, true}) {
    TraceBuilder b;
    StreamId legacy = b.legacy_stream();
    StreamId other = b.stream("other", v1::ROLE_COMPUTE, v1::STREAM_NON_BLOCKING);
    Buffer x = b.device_buffer("X", 4096);
    Buffer y = b.device_buffer("Y", 4096);
    b.memcpy(legacy, y, x, async);
    v1::Memcpy& c = *b.last_op().mutable_memcpy();
    c.set_direction(v1::COPY_P2P);
    c.set_dst_device(1);
    b.kernel(other, "overwrite_source", {}, {x});
    if (async)
      expect_hazards(b.take(), {{1, 2, kWar, kCopyCompute}});
    else
      expect_clean(b.take());
  }
}

}  // namespace
}  // namespace racetrack::check_test
