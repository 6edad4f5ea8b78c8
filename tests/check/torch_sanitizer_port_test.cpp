// PyTorch's CUDA sanitizer (torch.cuda._sanitizer) is tested in pytorch's
// test/test_cuda_sanitizer.py, class TestEventHandler, by feeding its event
// handler kernel launches (read-only and read-write tensors per stream),
// event records and waits, and synchronisations, and asserting which
// launches it flags. Each test here rewrites one of those scenarios as a
// trace (written anew, not copied) and asserts that racetrack agrees launch
// by launch: a "good" launch takes part in no hazard as the second op, a
// "bad" one in exactly as many as the sanitizer reports errors. The last
// tests are the cases that sanitizer is blind to (docs/design.md §1): pinned host
// memory and reuse of a freed block, which racetrack must flag.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "check_test_support.h"
#include "racetrack/traces/builder.h"

namespace racetrack::check_test {
namespace {

// The sanitizer's vocabulary over a trace: numbered streams (PyTorch side
// streams: non-blocking), tensors (device buffers) and events.
class Program {
 public:
  // Launches a kernel; `good` says whether the sanitizer accepts it, and
  // `errors` how many errors it reports when it does not.
  void launch(bool good, int stream, const std::vector<int>& read_only,
              const std::vector<int>& read_write = {}, int errors = 1) {
    std::vector<Span> reads, writes;
    for (int t : read_only) reads.push_back(tensor(t));
    for (int t : read_write) writes.push_back(tensor(t));
    b_.kernel(this->stream(stream), "op", reads, writes);
    // The sanitizer's read-write arguments: known to write, maybe to read.
    auto& accesses = *b_.last_op().mutable_kernel()->mutable_accesses();
    for (size_t i = read_only.size(); i < static_cast<size_t>(accesses.size()); ++i)
      accesses[static_cast<int>(i)].set_mode(v1::MODE_READ_WRITE);
    expected_[b_.last_op().seq()] = good ? 0 : errors;
  }
  void good(int stream, const std::vector<int>& read_only, const std::vector<int>& read_write = {}) {
    launch(true, stream, read_only, read_write);
  }
  void bad(int stream, const std::vector<int>& read_only, const std::vector<int>& read_write = {},
           int errors = 1) {
    launch(false, stream, read_only, read_write, errors);
  }
  void record(int event, int stream) { b_.record(this->event(event), this->stream(stream)); }
  void wait(int event, int stream) { b_.wait(this->stream(stream), this->event(event)); }
  void sync_stream(int stream) { b_.sync(this->stream(stream)); }
  void sync_event(int event) { b_.sync_event(this->event(event)); }
  void sync_device() { b_.sync_device(); }

  // Hazards whose second op is each launch, against the sanitizer's errors.
  void verify() {
    const v1::Chunk trace = b_.take();
    ASSERT_EQ(validation_errors(trace), std::vector<std::string>{});
    const race::CheckResult result = check_all(trace);
    std::map<uint64_t, int> got;
    for (const auto& [seq, errors] : expected_) got[seq] = 0;
    for (const race::Hazard& h : result.all) ++got[h.second.seq];
    EXPECT_EQ(got, expected_) << "hazards per launch (seq -> count):\n" << to_string(hazard_set(result));
  }

  StreamId stream(int i) {
    auto [it, added] = streams_.try_emplace(i);
    if (added)
      it->second = b_.stream("stream" + std::to_string(i), v1::ROLE_COMPUTE, v1::STREAM_NON_BLOCKING);
    return it->second;
  }
  Buffer tensor(int i) {
    auto [it, added] = tensors_.try_emplace(i);
    if (added) it->second = b_.device_buffer("tensor" + std::to_string(i), 1024);
    return it->second;
  }
  EventId event(int i) {
    auto [it, added] = events_.try_emplace(i);
    if (added) it->second = b_.event("event" + std::to_string(i));
    return it->second;
  }

 private:
  TraceBuilder b_;
  std::map<int, StreamId> streams_;
  std::map<int, Buffer> tensors_;
  std::map<int, EventId> events_;
  std::map<uint64_t, int> expected_;
};

// test_empty_kernel_launch
TEST(TorchSanitizerPort, EmptyKernelLaunch) {
  Program p;
  p.good(0, {});
  p.verify();
}

// test_simple_passing: two streams only read.
TEST(TorchSanitizerPort, SimplePassing) {
  Program p;
  p.good(1, {1});
  p.good(2, {1});
  p.verify();
}

// test_simple_error
TEST(TorchSanitizerPort, SimpleError) {
  Program p;
  p.good(1, {1});
  p.bad(2, {}, {1});
  p.verify();
}

// test_simple_sync
TEST(TorchSanitizerPort, SimpleSync) {
  Program p;
  p.good(1, {1});
  p.record(0, 1);
  p.wait(0, 2);
  p.good(2, {}, {1});
  p.verify();
}

// test_reads_check_last_write: every read, not only the first, is checked
// against the last write.
TEST(TorchSanitizerPort, ReadsCheckLastWrite) {
  Program p;
  p.good(1, {}, {1});
  p.record(0, 1);
  p.wait(0, 2);
  p.good(2, {1});
  p.bad(3, {1});
  p.verify();
}

// test_branch_sync: two streams may read after waiting for a third, but not
// write without more synchronisation.
TEST(TorchSanitizerPort, BranchSync) {
  Program p;
  p.good(1, {}, {1});
  p.record(0, 1);
  p.wait(0, 2);
  p.wait(0, 3);
  p.good(2, {1});
  p.good(3, {1});
  p.bad(2, {}, {1});
  p.verify();
}

// test_chain_sync: ordering is transitive along a chain of ten streams.
TEST(TorchSanitizerPort, ChainSync) {
  Program p;
  p.good(0, {1});
  for (int i = 0; i < 10; ++i) {
    p.record(i, i);
    p.wait(i, i + 1);
  }
  p.good(10, {}, {1});
  p.verify();
}

// test_expired_record: a record covers only what came before it.
TEST(TorchSanitizerPort, ExpiredRecord) {
  Program p;
  p.good(1, {1});
  p.record(0, 1);
  p.good(1, {1});
  p.wait(0, 2);
  p.bad(2, {}, {1});
  p.verify();
}

// test_deleted_record: the event was destroyed and created again before the
// wait. In a trace the re-created event is a new event that was never
// recorded, so the wait is a no-op (all three of the original's subcases).
TEST(TorchSanitizerPort, DeletedRecord) {
  Program p;
  p.good(1, {1});
  p.record(0, 1);
  p.wait(1, 2);  // event 1 stands for the re-created event 0
  p.bad(2, {}, {1});
  p.verify();
}

// test_all_reads_checked_failing: a write must be ordered after every read
// since the last write; the read on stream 10 is not waited for.
TEST(TorchSanitizerPort, AllReadsCheckedFailing) {
  Program p;
  for (int i = 1; i <= 9; ++i) {
    p.good(i, {1});
    p.record(i, i);
  }
  for (int i = 1; i <= 9; ++i) p.wait(i, 0);
  p.good(10, {1});
  p.record(10, 10);  // nobody waits for it
  p.bad(0, {}, {1});
  p.verify();
}

// test_all_reads_checked_passing
TEST(TorchSanitizerPort, AllReadsCheckedPassing) {
  Program p;
  for (int i = 1; i <= 9; ++i) {
    p.good(i, {1});
    p.record(i, i);
  }
  for (int i = 1; i <= 9; ++i) p.wait(i, 0);
  p.good(0, {}, {1});
  p.verify();
}

// test_multiple_errors: one error per tensor.
TEST(TorchSanitizerPort, MultipleErrors) {
  Program p;
  std::vector<int> tensors;
  for (int i = 0; i < 10; ++i) tensors.push_back(i);
  p.good(0, {}, tensors);
  p.bad(1, {}, tensors, 10);
  p.verify();
}

// test_correct_state_merging: a wait merges the recorded state into the
// stream's (pointwise maximum), transitively.
TEST(TorchSanitizerPort, CorrectStateMerging) {
  Program p;
  p.good(1, {}, {1});
  p.good(2, {}, {2});
  p.record(1, 1);
  p.record(2, 2);
  p.good(1, {}, {1});
  p.good(2, {}, {2});
  p.wait(1, 2);
  p.wait(2, 1);
  p.record(3, 2);
  p.wait(3, 1);
  p.good(1, {}, {1, 2});
  p.verify();
}

// test_record_override: re-recording an event on another stream replaces
// what a later wait binds to.
TEST(TorchSanitizerPort, RecordOverride) {
  Program p;
  p.good(1, {1});
  p.good(2, {2});
  p.record(1, 1);
  p.record(1, 2);
  p.wait(1, 3);
  p.bad(3, {}, {1});
  p.verify();
}

// test_multiple_wait: several streams wait on one record.
TEST(TorchSanitizerPort, MultipleWait) {
  Program p;
  p.good(1, {}, {1});
  p.record(1, 1);
  p.wait(1, 2);
  p.wait(1, 3);
  p.good(2, {1});
  p.good(3, {1});
  p.verify();
}

// test_device_synchronize: after a device synchronisation every stream is
// ordered after all earlier work.
TEST(TorchSanitizerPort, DeviceSynchronize) {
  Program p;
  std::vector<int> tensors;
  for (int i = 1; i <= 9; ++i) {
    p.good(i, {}, {i});
    tensors.push_back(i);
  }
  p.sync_device();
  p.good(0, {}, tensors);
  p.verify();
}

// test_device_synchronization_expired: the synchronisation covers only the
// work before it.
TEST(TorchSanitizerPort, DeviceSynchronizationExpired) {
  Program p;
  p.good(1, {}, {1});
  p.sync_device();
  p.good(1, {}, {1});
  p.bad(2, {}, {1});
  p.verify();
}

// test_new_stream_is_synchronized: a stream first used after a host join is
// ordered after what the host joined.
TEST(TorchSanitizerPort, NewStreamIsSynchronized) {
  Program p;
  p.good(1, {}, {1});
  p.sync_device();
  p.good(2, {}, {1});
  p.verify();
}

// test_stream_synchronize: a stream synchronisation orders later work after
// that stream only.
TEST(TorchSanitizerPort, StreamSynchronize) {
  Program p;
  p.good(0, {}, {1});
  p.good(1, {}, {2});
  p.sync_stream(0);
  p.good(2, {1});
  p.good(3, {1});
  p.bad(4, {2});
  p.verify();
}

// test_event_synchronize: an event synchronisation covers the record, not
// the recording stream's later work.
TEST(TorchSanitizerPort, EventSynchronize) {
  Program p;
  p.good(1, {}, {1});
  p.record(1, 1);
  p.good(1, {}, {2});
  p.sync_event(1);
  p.good(2, {}, {1});
  p.bad(2, {}, {2});
  p.verify();
}

// Not in the original: views. The sanitizer keys accesses by a tensor's data
// pointer; racetrack compares byte ranges, so two overlapping views of one
// buffer race and two disjoint ones do not.
TEST(TorchSanitizerPort, OverlappingViewsRaceDisjointOnesDoNot) {
  TraceBuilder b;
  auto s1 = b.stream("stream1", v1::ROLE_COMPUTE);
  auto s2 = b.stream("stream2", v1::ROLE_COMPUTE);
  auto base = b.device_buffer("storage", 4096);
  b.kernel(s1, "write_lo", {}, {base.slice(0, 2048)});
  b.kernel(s2, "write_hi", {}, {base.slice(2048, 2048)});  // disjoint: fine
  b.kernel(s2, "read_mid", {base.slice(1024, 2048)}, {});  // overlaps the first
  const auto result =
      expect_hazards(b.take(), {{1, 3, race::HazardKind::kRaw, race::HazardClass::kComputeVsCompute}});
  EXPECT_EQ(result.all.at(0).lo, base.base + 1024);
  EXPECT_EQ(result.all.at(0).hi, base.base + 2048);
}

// Blind spot 1 (C1/C3): the sanitizer ignores pinned host memory. An
// offload D2H writes pinned P while a reload H2D on another stream reads it
// with no wait.
TEST(TorchSanitizerBlindSpots, PinnedHostMemoryRace) {
  TraceBuilder b;
  auto compute = b.stream("compute", v1::ROLE_COMPUTE);
  auto offload = b.stream("offload", v1::ROLE_D2H);
  auto reload = b.stream("reload", v1::ROLE_H2D);
  auto act = b.device_buffer("activation", 4096);
  auto back = b.device_buffer("reloaded", 4096);
  auto pinned = b.pinned_buffer("activation.cpu", 4096);
  auto produced = b.event("produced");
  b.kernel(compute, "fwd", {}, {act});
  b.record(produced, compute);
  b.wait(offload, produced);
  b.memcpy(offload, pinned, act);  // seq 4 writes P
  b.memcpy(reload, back, pinned);  // seq 5 reads P: no wait on the offload
  const v1::Chunk trace = b.take();
  const auto result =
      expect_hazards(trace, {{4, 5, race::HazardKind::kRaw, race::HazardClass::kCopyVsCopy, 1, 0}});
  EXPECT_EQ(result.all.at(0).confidence, race::Confidence::kDefinite);
  EXPECT_EQ(result.all.at(0).space, race::kHostSpace);
  expect_fixes_clean(trace);
}

TEST(TorchSanitizerBlindSpots, PinnedHostMemoryOrderedByAWait) {
  TraceBuilder b;
  auto offload = b.stream("offload", v1::ROLE_D2H);
  auto reload = b.stream("reload", v1::ROLE_H2D);
  auto act = b.device_buffer("activation", 4096);
  auto back = b.device_buffer("reloaded", 4096);
  auto pinned = b.pinned_buffer("activation.cpu", 4096);
  auto offloaded = b.event("offloaded");
  b.memcpy(offload, pinned, act);
  b.record(offloaded, offload);
  b.wait(reload, offloaded);
  b.memcpy(reload, back, pinned);
  expect_clean(b.take());
}

// Blind spot 2 (C2): the sanitizer forgets a block's history when it is
// freed. Another stream still reads the old tensor when its block is handed
// out again (no record_stream) and overwritten.
TEST(TorchSanitizerBlindSpots, ReuseAfterFree) {
  TraceBuilder b;
  auto compute = b.stream("compute", v1::ROLE_COMPUTE);
  auto side = b.stream("side", v1::ROLE_OTHER);
  auto ready = b.event("ready");
  auto x = b.alloc("x", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, compute);
  auto out = b.device_buffer("out", 4096);
  b.kernel(compute, "fill", {}, {x});
  b.record(ready, compute);
  b.wait(side, ready);
  b.kernel(side, "consume", {x}, {out});  // seq 5 reads x
  b.free(x, compute);                     // del x, without x.record_stream(side)
  auto y = b.alloc("y", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, compute, &x);
  b.kernel(compute, "overwrite", {}, {y});  // seq 8 writes x's old bytes
  const v1::Chunk trace = b.take();
  const auto result = expect_hazards(trace, {{5, 8, race::HazardKind::kWar, race::HazardClass::kReuse}});
  EXPECT_EQ(result.all.at(0).lo, x.base);
  expect_fixes_clean(trace);
}

}  // namespace
}  // namespace racetrack::check_test
