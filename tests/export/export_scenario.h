// The trace the export tests share, with the span, track and flows each op's
// slice must get and the NVTX ranges (docs/export.md): two devices, three
// streams with roles, two host threads that issue work plus an idle one,
// kernels and copies with and without device times, two kernels whose
// device times overlap, an event waited on by two streams, a re-recorded
// event, a record nobody waits for, a wait on a never-recorded event and
// nested NVTX ranges.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "racetrack/traces/builder.h"
#include "racetrack/traces/export.h"

namespace racetrack::testing {

struct ExpectedSlice {
  bool on_stream = false;
  uint32_t lane = 0;  // stream or host-thread id
  int64_t start = 0, end = 0;
  uint32_t overlap = 0;  // 0: on the lane's own track; k: its k-th overlap track
};

struct ExpectedRange {
  std::string path;
  int64_t start = 0, end = 0;
  auto operator<=>(const ExpectedRange&) const = default;
};

struct ExportScenario {
  v1::Chunk trace;
  std::map<uint64_t, ExpectedSlice> slices;                     // by seq
  std::set<std::pair<uint64_t, uint64_t>> flows;                // (record seq, wait seq)
  std::set<ExpectedRange> main_ranges;                          // NVTX, on the main thread
  uint32_t compute = 0, offload = 0, prefetch = 0, unused = 0;  // stream ids
  uint32_t main_thread = 0, worker = 0, idle = 0;               // thread ids
};

// Each builder op takes 2000 ns of host time: op n runs [2000(n-1), 2000n].
inline ExportScenario export_scenario() {
  ExportScenario s;
  TraceBuilder b;
  v1::Header& h = b.header();
  h.set_host("box");
  h.set_pid(77);
  v1::Device& gpu0 = *h.add_devices();
  gpu0.set_id(0);
  gpu0.set_name("Test GPU");
  v1::Device& gpu1 = *h.add_devices();
  gpu1.set_id(1);
  gpu1.set_name("Other GPU");

  const ThreadId main_thread = b.thread("main");
  const ThreadId worker = b.thread("worker");
  const ThreadId idle = b.thread("idle");
  const StreamId compute = b.stream("compute", v1::ROLE_COMPUTE);
  const StreamId offload = b.stream("offload", v1::ROLE_D2H);
  const StreamId prefetch = b.stream("", v1::ROLE_H2D);  // moved to device 1 below
  const StreamId unused = b.stream("spare", v1::ROLE_OTHER);
  const Buffer x = b.device_buffer("X", 4096);
  const Buffer y = b.device_buffer("Y", 4096);
  const Buffer p = b.pinned_buffer("P", 4096);
  const EventId e_off = b.event("e_off");
  const EventId e_pref = b.event("e_pref");
  const EventId e_never = b.event("e_never");
  b.on_thread(main_thread);

  auto stream_at = [&](StreamId st, int64_t start, int64_t end) {
    s.slices[b.last_op().seq()] = {true, st.id, start, end};
  };
  auto thread_at = [&](ThreadId t, int64_t start, int64_t end) {
    s.slices[b.last_op().seq()] = {false, t.id, start, end};
  };

  auto timed = [](int64_t ns) {
    KernelOptions options;
    options.duration_ns = ns;
    return options;
  };
  // Device ops keep their device times; a stream op without them starts
  // where its stream got to (not before its host call, a wait not before
  // its record), and takes no time when it does no work.
  b.kernel(compute, "fwd", {x}, {y}, timed(5000));  // #1: device 2000..7000
  stream_at(compute, 2000, 7000);
  b.record(e_off, compute);  // #2: host 2000, after the kernel on its stream
  stream_at(compute, 7000, 7000);
  const uint64_t first_record = b.last_op().seq();
  b.wait(offload, e_off);  // #3: host 4000, not before the record
  stream_at(offload, 7000, 7000);
  s.flows.insert({first_record, b.last_op().seq()});
  b.memcpy(offload, p, y);  // #4: D2H with device times
  b.last_op().set_device_start(12000);
  b.last_op().set_device_end(20000);
  stream_at(offload, 12000, 20000);
  b.wait(prefetch, e_off);  // #5: a second waiter: a second flow
  stream_at(prefetch, 8000, 8000);
  s.flows.insert({first_record, b.last_op().seq()});
  b.on_thread(worker);
  b.memcpy(prefetch, x, p);  // #6: H2D without device times, host 10000..12000
  stream_at(prefetch, 10000, 12000);
  b.record(e_off, offload);  // #7: re-recorded, after the copy on offload
  stream_at(offload, 20000, 20000);
  const uint64_t second_record = b.last_op().seq();
  b.on_thread(main_thread);
  b.wait(compute, e_off);  // #8: binds to #7, the latest record
  stream_at(compute, 20000, 20000);
  s.flows.insert({second_record, b.last_op().seq()});
  b.record(e_pref, prefetch);  // #9: nobody waits
  stream_at(prefetch, 16000, 16000);
  b.wait(compute, e_never);  // #10: nothing to bind to
  stream_at(compute, 20000, 20000);
  b.sync(offload);  // #11: names a stream, runs on the host thread
  thread_at(main_thread, 20000, 22000);
  b.host_read(p.slice(0, 64));  // #12
  thread_at(main_thread, 22000, 24000);
  b.push_range("step");
  b.mark("tick");  // #13
  thread_at(main_thread, 24000, 26000);
  s.main_ranges.insert({"step", 24000, 26000});
  b.pop_range();
  b.kernel(compute, "k\"q\\\n", {}, {x}, timed(1000));  // #14: a name to escape
  stream_at(compute, 28000, 29000);
  b.memset(compute, y);  // #15: zero-length device time
  b.last_op().set_device_start(30000);
  b.last_op().set_device_end(30000);
  stream_at(compute, 30000, 30000);
  b.push_range("fwd");
  b.kernel(compute, "early", {y}, {}, {});  // #16: starts before #15: an overlap track
  b.last_op().set_device_start(29500);
  b.last_op().set_device_end(31000);
  stream_at(compute, 29500, 31000);
  s.slices[b.last_op().seq()].overlap = 1;
  b.push_range("attn");
  b.kernel(compute, "next", {y}, {}, {});  // #17: back on the stream's own track
  b.last_op().set_device_start(31000);
  b.last_op().set_device_end(32000);
  stream_at(compute, 31000, 32000);
  b.pop_range();
  b.mark("in fwd");  // #18
  thread_at(main_thread, 34000, 36000);
  b.pop_range();
  b.mark("outside");  // #19
  thread_at(main_thread, 36000, 38000);
  s.main_ranges.insert({"fwd", 30000, 36000});
  s.main_ranges.insert({"fwd/attn", 32000, 34000});

  s.trace = b.take();
  s.trace.mutable_streams(static_cast<int>(prefetch.id) - 1)->set_device(1);
  s.compute = compute.id;
  s.offload = offload.id;
  s.prefetch = prefetch.id;
  s.unused = unused.id;
  s.main_thread = main_thread.id;
  s.worker = worker.id;
  s.idle = idle.id;
  return s;
}

// Hazards on the scenario, as `racetrack export` would pass them: [1]
// between two copies on two streams, [2] between two kernels far apart (its
// slice overlaps [1]'s: a hazard overlap track), [3] within one op (two
// nodes of a graph launch race).
struct ExpectedHazard {
  uint64_t number = 0;
  int64_t start = 0, end = 0;  // from the earlier op's start to the later op's end
  uint32_t overlap = 0;        // its hazard track
};

inline std::vector<ExportHazard> scenario_hazards() {
  return {{1, 4, 6, "[1] definite RAW copy-vs-copy on \"P\"", {{"fix", "make prefetch wait for offload"}}},
          {2, 1, 14, "[2] likely WAW compute-vs-compute on \"X\"", {{"explanation", "two kernels"}}},
          {3, 16, 16, "[3] definite RAW compute-vs-compute on \"Y\"", {}}};
}

inline std::map<uint64_t, ExpectedHazard> scenario_hazard_slices() {
  return {{1, {1, 10000, 20000, 1}}, {2, {2, 2000, 29000, 0}}, {3, {3, 29500, 31000, 0}}};
}

// The record -> wait pairs of any trace, found the simple way: a wait binds
// to the latest record of its event before it.
inline std::set<std::pair<uint64_t, uint64_t>> record_wait_pairs(const v1::Chunk& trace) {
  std::set<std::pair<uint64_t, uint64_t>> pairs;
  std::map<uint32_t, uint64_t> latest;
  for (const v1::Op& op : trace.ops()) {
    if (op.has_record()) latest[op.record().event()] = op.seq();
    if (op.has_wait())
      if (auto it = latest.find(op.wait().event()); it != latest.end()) pairs.insert({it->second, op.seq()});
  }
  return pairs;
}

}  // namespace racetrack::testing
