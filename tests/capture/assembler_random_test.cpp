// Whatever the program did and however its records arrive (late, missing,
// for failed calls, for nothing), the assembler writes a valid trace with one
// op per executed call, and the checker reads it without complaint.
#include <gtest/gtest.h>

#include <random>

#include "assembler_test_support.h"

namespace racetrack::capture::testing {
namespace {

using racetrack::testing::TempDir;

// A random program over a few addresses, streams and events, so that frees
// meet their allocations, waits their records and labels their regions.
FakeProgram random_program(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
  auto address = [&] { return 0x10000 * (1 + pick(6)) + 0x100 * pick(3); };
  auto stream = [&] { return pick(4) == 0 ? kLegacy : user_stream(static_cast<int>(pick(3))); };
  const char* const marks[] = {"step",
                               "racetrack:kernel w:0x10000:256",
                               "racetrack:kernel q:0x10:4",
                               "racetrack:host r:0x20000:64",
                               "racetrack:label 0x30000:4096 buffer",
                               "racetrack:label 0x30100:16 inner",
                               "racetrack:op x",
                               "racetrack:host w:0x10:0"};
  FakeProgram p;
  const int calls = 40 + static_cast<int>(pick(40));
  for (int i = 0; i < calls; ++i) {
    p.tid = kMainThread + pick(2);
    const size_t records_before = p.records.size();
    switch (pick(12)) {
      case 0: p.launch(stream(), {address(), pick(100)}, "k" + std::to_string(pick(3)), pick(4) != 0); break;
      case 1:
        p.memcpy(stream(), address(), address(), 1 + pick(512), static_cast<uint32_t>(pick(5)),
                 static_cast<MemoryKind>(pick(4)), static_cast<MemoryKind>(pick(4)), pick(2));
        break;
      case 2: p.event_record(stream(), 0xE0 + pick(2), 1 + pick(5)); break;
      case 3: p.stream_wait(stream(), 0xE0 + pick(2), 1 + pick(5)); break;
      case 4: p.call(ApiKind::kStreamSync, stream()); break;
      case 5: {
        ApiEvent& q = p.call(pick(2) ? ApiKind::kEventQuery : ApiKind::kStreamQuery, stream());
        q.event = 0xE0 + pick(2);
        q.result = pick(2) ? 600 : 0;
        break;
      }
      case 6: {
        const ApiKind kinds[] = {ApiKind::kMalloc, ApiKind::kHostAlloc, ApiKind::kMallocAsync,
                                 ApiKind::kVmmMap};
        p.alloc(kinds[pick(4)], address(), 0x100 * (1 + pick(64)), stream());
        break;
      }
      case 7: {
        const ApiKind kinds[] = {ApiKind::kFree, ApiKind::kHostFree, ApiKind::kFreeAsync, ApiKind::kVmmUnmap};
        p.alloc(kinds[pick(4)], address(), 0x10000, stream());
        break;
      }
      case 8: p.nvtx(ApiKind::kNvtxMark, marks[pick(8)]); break;
      case 9: p.nvtx(pick(2) ? ApiKind::kNvtxPush : ApiKind::kNvtxPop, "racetrack:op r r:0x10000:8"); break;
      case 10: {
        ApiEvent& d = p.call(pick(2) ? ApiKind::kEventDestroy : ApiKind::kStreamDestroy, stream());
        d.event = 0xE0 + pick(2);
        break;
      }
      case 11: {  // a one-node graph, captured, instantiated and launched
        const uint64_t node = 100 + pick(4), exec_node = 200 + pick(4), exec = 1 + pick(2);
        p.launch(stream(), {address()}, "g", false);
        p.events.back().event.graph_node = node;
        ApiEvent& cloned = p.call(ApiKind::kGraphNodeCloned);
        cloned.handle = exec_node;
        cloned.src = node;
        cloned.dst = exec;
        p.call(ApiKind::kGraphLaunch, stream()).value = static_cast<uint32_t>(exec);
        break;
      }
    }
    // Some calls fail, some have no end time; some records go missing.
    if (pick(10) == 0) p.events.back().event.result = 1;
    if (pick(15) == 0) p.events.back().event.host_end = 0;
    if (p.records.size() > records_before && pick(6) == 0) p.records.pop_back();
  }
  for (int i = 0; i < 3; ++i) {
    KernelRecord stray;
    stray.correlation = static_cast<uint32_t>(pick(200));
    p.records.push_back(stray);
  }
  return p;
}

TEST(AssemblerRandom, EveryProgramGivesAValidTrace) {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const FakeProgram p = random_program(seed);
    TempDir dir;
    AssemblerOptions options;
    options.record_wait_ns = static_cast<int64_t>(seed % 3) * 3000;        // short waits: timeouts happen
    const Assembled a = assemble(p, dir.path("t.rtrace"), seed, options);  // validates
    ASSERT_FALSE(::testing::Test::HasFailure()) << "seed " << seed;
    EXPECT_EQ(a.stats.ops_written, static_cast<uint64_t>(a.trace.ops_size())) << "seed " << seed;
    EXPECT_EQ(a.stats.api_events, p.events.size());
    EXPECT_EQ(a.stats.records, p.records.size());
    const race::CheckResult result = check(a.trace);
    EXPECT_EQ(result.ops, static_cast<uint64_t>(a.trace.ops_size())) << "seed " << seed;
  }
}

}  // namespace
}  // namespace racetrack::capture::testing
