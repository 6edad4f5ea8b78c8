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

#include "racetrack/race/access.h"
#include "racetrack/traces/progress.h"
#include "racetrack/traces/tables.h"

namespace racetrack::des {

// What a device part occupies while it runs.
enum class Resource : uint8_t { kNone, kKernel, kCopyH2D, kCopyD2H, kCopyOther };

// The costs used for ops the trace has no device times for.
struct CostModel {
  double h2d_bytes_per_ns = 25.0;  // ~25 GB/s over PCIe
  double d2h_bytes_per_ns = 25.0;
  double d2d_bytes_per_ns = 1000.0;
  int64_t copy_latency_ns = 2000;
  int64_t kernel_ns = 20000;  // a kernel with no recorded time
  double kernel_bytes_per_ns = 2000.0;  // or its bytes at HBM speed, if longer
  int64_t call_ns = 2000;  // a host call with no recorded duration
  bool use_traced_times = true;
};

struct Dep {
  enum Part : uint8_t { kIssue, kHostEnd, kDeviceEnd };
  uint32_t op;
  Part part;
};

struct SimAccess {
  race::SpaceKey space;
  uint64_t lo, hi;
  bool reads, writes;
  uint32_t label;  // region label string id, for blast-radius reports
};

struct SimOp {
  uint64_t seq = 0;
  uint32_t thread = 0;  // index into Program::threads
  uint32_t stream = 0;  // stream id; 0 for host-only ops
  Resource resource = Resource::kNone;
  bool device = false;
  int64_t call_ns = 0;
  int64_t device_ns = 0;
  // Deps of the device part, and deps the host part waits for before
  // returning (host joins), as ranges in Program::deps.
  uint32_t device_deps = 0, device_dep_count = 0;
  uint32_t host_deps = 0, host_dep_count = 0;
  uint32_t accesses = 0, access_count = 0;  // range in Program::accesses
};

struct Program {
  std::vector<SimOp> ops;
  std::vector<Dep> deps;
  std::vector<SimAccess> accesses;
  std::vector<std::vector<uint32_t>> threads;  // op indices of each thread, in order
  std::vector<uint32_t> stream_ids;             // streams that have ops
  std::shared_ptr<TraceTables> tables;
  uint32_t h2d_engines = 1, d2h_engines = 1;

  size_t index_of(uint64_t seq) const;  // ops.size() when absent
};

Result<Program> load_program(const std::string& path, const CostModel& costs, const Progress& progress = {});

}  // namespace racetrack::des
