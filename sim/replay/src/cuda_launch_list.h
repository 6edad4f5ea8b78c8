// The replay plan lowered for the CUDA backend: what each op asks of its
// CUDA stream and of its host thread, with every ordering the program's
// happens-before dependencies demand turned into the CUDA call that keeps
// it (an event recorded after an op, a stream waiting for it, a host thread
// synchronising on it) and every cross-thread issue order made explicit.
// Plain structs, so the .cu file includes this without the trace headers;
// the lowering itself is plain C++ and tested without a GPU.
#pragma once

#include <cstdint>
#include <vector>

#include "stamps.h"

namespace racetrack::replay {

// A traced stream as the replay creates it.
struct StreamSpec {
  uint32_t traced_id = 0;
  bool legacy = false;        // the legacy default (NULL) stream
  bool non_blocking = false;  // cudaStreamNonBlocking
  int32_t priority = 0;       // as traced; the backend clamps it to the device's range
};

// An arena: one per address space of the plan.
struct ArenaSpec {
  uint32_t space = 0;  // race::SpaceKey: 0 host (pinned), d + 1 device d
  uint64_t bytes = 0;
  uint64_t granules = 0;  // version stamps
};

// Before an op is issued, its host thread waits until op `op` (of another
// thread, earlier in submission order) was issued, or returned.
struct IssueAfter {
  uint32_t op = 0;
  bool returned = false;
};

enum class Work : uint8_t {
  kNone,        // nothing on the device (event records, waits, stream-ordered allocs) or the host
  kKernel,      // a synthetic kernel: check reads, run, stamp writes
  kCopy,        // check kernel, cudaMemcpyAsync, stamp kernel
  kMemset,      // check kernel, cudaMemsetAsync, stamp kernel
  kHostFunc,    // cudaLaunchHostFunc: checks and stamps on the CPU
  kHostAccess,  // the host thread itself reads or writes (pinned) host memory
};

struct OpLaunch {
  Work work = Work::kNone;
  int32_t stream = -1;  // index into LaunchList::streams; -1 for host-only ops
  uint32_t thread = 0;
  int64_t call_ns = 0, device_ns = 0;
  uint32_t checks = 0, check_count = 0;  // into LaunchList::checks
  uint32_t writes = 0, write_count = 0;  // into LaunchList::writes
  uint32_t waits = 0, wait_count = 0;    // into LaunchList::event_refs: events the stream waits for first
  uint32_t joins = 0,
           join_count = 0;  // into LaunchList::event_refs: events the host waits for before returning
  uint32_t issue_after = 0, issue_after_count = 0;  // into LaunchList::issue_after
  int32_t done_event = -1;                          // event recorded after the op, when anything waits for it
  // Copies and memsets: their contiguous runs (one, or a pitched shape's
  // rows), into LaunchList::copy_runs.
  uint32_t runs = 0, run_count = 0;
};

// One contiguous run of a copy or memset, in arena bytes (the arena image of
// the traced range); a memset's src fields are unused.
struct CopyRun {
  uint32_t src_space = 0, dst_space = 0;
  uint64_t src_offset = 0, dst_offset = 0, bytes = 0;
};

struct LaunchList {
  std::vector<StreamSpec> streams;
  std::vector<ArenaSpec> arenas;
  uint64_t granule = 0;
  std::vector<OpLaunch> ops;                   // by op index (submission order)
  std::vector<std::vector<uint32_t>> threads;  // op indices of each traced host thread, in order
  std::vector<GranuleCheck> checks;
  std::vector<GranuleWrite> writes;
  std::vector<CopyRun> copy_runs;
  std::vector<uint32_t> event_refs;
  std::vector<IssueAfter> issue_after;
  uint32_t events = 0;  // done events
};

// Lowers a loaded program laid out by `plan`; `reference` gives the
// versions reads must see.
LaunchList lower_to_launches(const des::Program& program, const ArenaPlan& plan,
                             const des::SequentialReference& reference);

}  // namespace racetrack::replay
