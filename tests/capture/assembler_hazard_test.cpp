// Assembled traces judged by the real checker: the offload hazards the
// capturer exists to find are reported, and the same programs with the
// missing event (or host join) are clean.
#include <gtest/gtest.h>

#include "assembler_test_support.h"

namespace racetrack::capture::testing {
namespace {

using racetrack::testing::TempDir;

constexpr uint64_t kActivation = 0x10000, kReloaded = 0x20000, kPinned = 0x90000, kBytes = 4096;

std::string access(const char* mode, uint64_t address, uint64_t bytes = kBytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%s:0x%llx:%llu", mode, static_cast<unsigned long long>(address),
                static_cast<unsigned long long>(bytes));
  return text;
}

// Device and pinned buffers and two non-blocking streams, as PyTorch sets up.
struct Streams {
  FakeStream compute = user_stream(0), offload = user_stream(1);
};

Streams set_up_program(FakeProgram& p) {
  Streams s;
  p.alloc(ApiKind::kMalloc, kActivation, kBytes);
  p.alloc(ApiKind::kMalloc, kReloaded, kBytes);
  p.alloc(ApiKind::kHostAlloc, kPinned, kBytes);
  p.call(ApiKind::kStreamCreate, s.compute).value = 1;
  p.call(ApiKind::kStreamCreate, s.offload).value = 1;
  return s;
}

void kernel_writing(FakeProgram& p, FakeStream s, uint64_t address, const std::string& name) {
  p.nvtx(ApiKind::kNvtxMark, "racetrack:kernel " + access("w", address));
  p.launch(s, {address}, name);
}

// The forward kernel writes the activation; the offload stream waits for it
// and copies it to pinned memory.
void offload_activation(FakeProgram& p, const Streams& s) {
  kernel_writing(p, s.compute, kActivation, "fwd");
  p.event_record(s.compute, 0xE0, 1);
  p.stream_wait(s.offload, 0xE0, 1);
  p.memcpy(s.offload, kPinned, kActivation, kBytes, 2, MemoryKind::kPinned, MemoryKind::kDevice);
}

const v1::Op& op_with_correlation(const v1::Chunk& trace, uint64_t correlation) {
  for (const v1::Op& op : trace.ops())
    if (op.correlation_id() == correlation) return op;
  ADD_FAILURE() << "no op for correlation " << correlation;
  return trace.ops(0);
}

TEST(AssemblerHazards, AnOffloadCopyRacesTheKernelThatOverwritesItsSource) {
  FakeProgram p;
  const Streams s = set_up_program(p);
  offload_activation(p, s);
  const uint64_t copy = p.events.back().event.correlation;
  p.nvtx(ApiKind::kNvtxMark, "racetrack:kernel " + access("w", kActivation));
  const uint64_t overwrite = p.launch(s.compute, {kActivation}, "next_layer");
  TempDir dir;
  const std::string path = dir.path("t.rtrace");
  const Assembled a = assemble(p, path, 17);

  const race::CheckResult result = check(a.trace);
  ASSERT_EQ(result.all.size(), 1u);
  const race::Hazard& h = result.all[0];
  EXPECT_EQ(h.first.seq, op_with_correlation(a.trace, copy).seq());
  EXPECT_EQ(h.second.seq, op_with_correlation(a.trace, overwrite).seq());
  EXPECT_EQ(h.kind, race::HazardKind::kWar);
  EXPECT_EQ(h.confidence, race::Confidence::kDefinite);
  EXPECT_EQ(h.lo, kActivation);
  // The file, read chunk by chunk, says the same.
  race::CheckOptions options;
  options.explain_and_fix = false;
  auto from_file = race::check_file(path, options);
  ASSERT_TRUE(from_file.ok()) << from_file.error().describe();
  EXPECT_EQ(from_file->hazards, 1u);
}

TEST(AssemblerHazards, AnEventFromTheOffloadStreamMakesItClean) {
  FakeProgram p;
  const Streams s = set_up_program(p);
  offload_activation(p, s);
  p.event_record(s.offload, 0xE1, 2);
  p.stream_wait(s.compute, 0xE1, 2);
  kernel_writing(p, s.compute, kActivation, "next_layer");
  TempDir dir;
  const Assembled a = assemble(p, dir.path("t.rtrace"), 23);
  ASSERT_EQ(ops_of(a.trace, v1::Op::kWait).size(), 2u);
  EXPECT_EQ(check(a.trace).hazards, 0u);
}

// C1 from docs/offload-hazards.md: the reload reads the pinned buffer the offload
// is still writing.
TEST(AssemblerHazards, AReloadNotWaitingForTheOffloadRacesIt) {
  for (bool waits : {false, true}) {
    FakeProgram p;
    const Streams s = set_up_program(p);
    offload_activation(p, s);
    p.event_record(s.offload, 0xE1, 2);  // e_off
    if (waits) p.stream_wait(s.compute, 0xE1, 2);
    const uint64_t reload =
        p.memcpy(s.compute, kReloaded, kPinned, kBytes, 1, MemoryKind::kDevice, MemoryKind::kPinned);
    TempDir dir;
    const Assembled a = assemble(p, dir.path("t.rtrace"), 5);
    const race::CheckResult result = check(a.trace);
    if (waits) {
      EXPECT_EQ(result.hazards, 0u);
      continue;
    }
    ASSERT_EQ(result.all.size(), 1u);
    EXPECT_EQ(result.all[0].kind, race::HazardKind::kRaw);
    EXPECT_EQ(result.all[0].second.seq, op_with_correlation(a.trace, reload).seq());
    EXPECT_EQ(result.all[0].lo, kPinned);
  }
}

// The host reads the pinned copy after polling the event that follows it:
// only a query that said "ready" orders the read.
TEST(AssemblerHazards, OnlyAReadyQueryIsAHostJoin) {
  for (int32_t result : {0, 600}) {
    FakeProgram p;
    const Streams s = set_up_program(p);
    offload_activation(p, s);
    p.event_record(s.offload, 0xE1, 2);
    ApiEvent& query = p.call(ApiKind::kEventQuery);
    query.event = 0xE1;
    query.result = result;
    p.nvtx(ApiKind::kNvtxMark, "racetrack:host " + access("r", kPinned));
    TempDir dir;
    const Assembled a = assemble(p, dir.path("t.rtrace"), 11);
    EXPECT_EQ(check(a.trace).hazards, result == 0 ? 0u : 1u) << "query result " << result;
  }
}

// A D2H copy into pageable memory returns only when it is done (the record
// says pageable); into pinned memory it returns at once.
TEST(AssemblerHazards, APageableCopyJoinsTheHost) {
  for (MemoryKind kind : {MemoryKind::kPageable, MemoryKind::kPinned}) {
    FakeProgram p;
    const Streams s = set_up_program(p);
    const uint64_t host = kind == MemoryKind::kPinned ? kPinned : 0x7fff0000;
    kernel_writing(p, s.compute, kActivation, "fwd");
    p.memcpy(s.compute, host, kActivation, kBytes, 2, kind, MemoryKind::kDevice);
    p.nvtx(ApiKind::kNvtxMark, "racetrack:host " + access("r", host));
    TempDir dir;
    const Assembled a = assemble(p, dir.path("t.rtrace"), 2);
    EXPECT_EQ(check(a.trace).hazards, kind == MemoryKind::kPageable ? 0u : 1u);
  }
}

}  // namespace
}  // namespace racetrack::capture::testing
