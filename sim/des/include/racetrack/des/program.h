// A trace loaded for simulation: compact ops with their durations, the byte
// ranges they read and write, and their dependencies, derived from the
// checker's happens-before clocks (docs/sim.md). Every op has a host part
// (its API call, in its thread's order) and device ops also a device part
// (on their stream). A dependency names the part of an earlier op that
// must be done first.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "racetrack/hb/assumptions.h"
#include "racetrack/race/access.h"
#include "racetrack/traces/progress.h"
#include "racetrack/traces/spill_array.h"
#include "racetrack/traces/tables.h"

namespace racetrack {
class TraceSource;
}

namespace racetrack::des {

// Times are int64 ns and a valid trace may hold any of them, so the model's
// arithmetic saturates at the ends of the range instead of overflowing.
inline int64_t add_ns(int64_t a, int64_t b) {
  int64_t sum;
  return __builtin_add_overflow(a, b, &sum) ? (b > 0 ? INT64_MAX : INT64_MIN) : sum;
}
// end - start, saturating.
inline int64_t span_ns(int64_t start, int64_t end) {
  int64_t span;
  return __builtin_sub_overflow(end, start, &span) ? (end > start ? INT64_MAX : INT64_MIN) : span;
}
// A modelled duration as ns in [0, INT64_MAX] (NaN: 0).
inline int64_t duration_ns(double ns) {
  if (!(ns > 0)) return 0;
  return ns >= 9.2e18 ? INT64_MAX : static_cast<int64_t>(ns);
}

// What a device part occupies while it runs.
enum class Resource : uint8_t { kNone, kKernel, kCopyH2D, kCopyD2H, kCopyOther };

// The costs used for ops the trace has no device times for.
struct CostModel {
  double h2d_bytes_per_ns = 25.0;  // ~25 GB/s over PCIe
  double d2h_bytes_per_ns = 25.0;
  double d2d_bytes_per_ns = 1000.0;
  int64_t copy_latency_ns = 2000;
  int64_t kernel_ns = 20000;            // a kernel with no recorded time
  double kernel_bytes_per_ns = 2000.0;  // or its bytes at HBM speed, if longer
  int64_t call_ns = 2000;               // a host call with no recorded duration
  bool use_traced_times = true;
};

struct Dep {
  // kDeviceStart: a staged copy's call returns once its source is read,
  // i.e. once its own device part has started (docs/sim.md).
  enum Part : uint8_t { kIssue, kHostEnd, kDeviceEnd, kDeviceStart };
  uint32_t op;
  Part part;
};

struct SimAccess {
  race::SpaceKey space;
  // Where the lifetime-respecting baseline (the sequential reference) puts
  // these bytes: `space`, except for a graph launch's captured address whose
  // region was freed since the capture (docs/sim.md, "Graph launches").
  race::SpaceKey reference_space;
  uint64_t lo, hi;
  uint32_t label;  // region label string id, for blast-radius reports
  bool reads, writes;
};

// A freed region a graph launch still reaches through a captured address:
// at op `op` (its free) the baseline keeps [lo, hi) of `space` as they are
// in bytes of its own, `retired`, which no later allocation reuses.
struct Retirement {
  uint32_t op;
  race::SpaceKey space, retired;
  uint64_t lo, hi;
};

struct SimOp {
  uint64_t seq = 0;
  uint32_t thread = 0;  // index into Program::threads
  uint32_t stream = 0;  // stream id; 0 for host-only ops
  Resource resource = Resource::kNone;
  bool device = false;
  // A staged copy (docs/ordering-rules.md 6b): its call returns once the
  // device part has started (read the source), so a delay holds back its
  // device write (the end), not its start.
  bool staged = false;
  // A PDL secondary kernel (docs/ordering-rules.md rule 1a) that may start
  // once the op before it on its stream has started, not ended.
  bool overlaps_previous = false;
  // Some external agent's access lands at this op (Program::observed_at).
  bool observes_external = false;
  int64_t call_ns = 0;
  int64_t device_ns = 0;
  // Deps of the device part, and deps the host part waits for before
  // returning (host joins), as ranges in Program::deps.
  uint32_t device_deps = 0, device_dep_count = 0;
  uint32_t host_deps = 0, host_dep_count = 0;
  uint32_t accesses = 0, access_count = 0;  // range in Program::accesses
};

// An external agent's declared access (C14, docs/sim.md): it stamps its
// declaring op's version; the baseline lands it at `declared`, a run at
// `observer` (kNever: it never lands).
inline constexpr uint32_t kNever = UINT32_MAX;
struct ExternalLanding {
  uint32_t declared;
  uint32_t observer;
  SimAccess access;
};

// The per-op arrays are SpillArrays: a long trace's arrays live in temporary files,
// not in resident memory (docs/sim.md, "Memory").
struct Program {
  SpillArray<SimOp> ops;
  SpillArray<Dep> deps;
  SpillArray<SimAccess> accesses;
  std::vector<Retirement> retirements;
  std::vector<ExternalLanding> externals;      // by observer, those never observed last
  std::vector<SpillArray<uint32_t>> threads;   // op indices of each thread, in order
  std::vector<uint32_t> stream_ids;            // streams that have ops
  std::shared_ptr<TraceTables> tables;
  uint32_t h2d_engines = 1, d2h_engines = 1;

  size_t index_of(uint64_t seq) const;  // ops.size() when absent
  // The external accesses op `op` observes: indices into `externals`.
  std::pair<uint32_t, uint32_t> observed_at(uint32_t op) const;
};

// Loads a trace (validated, as TraceSource::open reads it); the second form
// takes a source opened by the caller, which may skip validation: the loader
// itself refuses what it cannot model (undefined threads and streams, seqs
// that do not increase) with an error. Kernels' accesses use the machine-code
// modes of `code_modes` (null: none), as the checker does; `assumptions` are
// the happens-before readings (docs/ordering-rules.md).
Result<Program> load_program(const std::string& path, const CostModel& costs, const Progress& progress = {},
                             std::shared_ptr<race::CodeModeTable> code_modes = nullptr,
                             const hb::Assumptions& assumptions = {});
Result<Program> load_program(TraceSource& source, const CostModel& costs, const Progress& progress = {},
                             std::shared_ptr<race::CodeModeTable> code_modes = nullptr,
                             const hb::Assumptions& assumptions = {});

}  // namespace racetrack::des
