// Where NVIDIA's documentation says a call "might" or "may" synchronise, the
// ordering model needs a reading. Each such case is a named assumption with
// a default and one other value (docs/ordering-rules.md, "Assumptions");
// check, sim and replay take `--assume NAME=VALUE` and say in their reports
// under which assumptions a verdict holds.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "racetrack/traces/result.h"

namespace racetrack::hb {

struct Assumptions {
  // cudaMemcpyAsync device -> pageable host: "might be synchronous". true:
  // the call returns once the copy is done (a host join).
  bool pageable_async_d2h_sync = true;
  // cudaMemcpyAsync pageable host -> device: "the driver may synchronize
  // with the stream and stage the copy". true: staged, as the blocking
  // copy is (the host joins the stream's earlier work and its source is
  // read before the call returns; the device write is still in flight).
  bool pageable_async_h2d_staged = true;
  // cudaFree / cudaFreeHost of memory not from a pool: "may perform
  // implicit synchronization". true: a device-wide host join.
  bool free_syncs = true;
  // cudaMalloc, cudaMallocHost / cudaHostAlloc, cudaHostRegister: no API
  // reference entry promises a synchronisation. true: each is a
  // device-wide host join as well.
  bool alloc_syncs = false;

  bool operator==(const Assumptions&) const = default;
};

// One assumption as the command line spells it.
struct AssumptionInfo {
  std::string_view name;    // "pageable-async-d2h"
  std::string_view values;  // "sync|async", the default first
  std::string_view meaning;
};
const std::vector<AssumptionInfo>& assumption_list();

// Applies "NAME=VALUE" (e.g. "free-syncs=no") to `a`; the error names the
// assumption or value that is not known and lists the valid ones.
Status apply_assumption(std::string_view setting, Assumptions& a);

// Every assumption as NAME=VALUE, in assumption_list() order, e.g.
// {"pageable-async-d2h=sync", ...}; for reports.
std::vector<std::string> describe(const Assumptions& a);

}  // namespace racetrack::hb
