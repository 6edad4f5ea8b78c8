// Allocations for the trace assembler: allocation calls become a region and
// an Alloc op, releases a Free op of the live region at that address; MEMORY2
// records add module globals (live from the start of the trace) and
// allocations made inside other calls.
#pragma once
#include <cstdint>

#include "assembler_arrays.h"
#include "assembler_calls.h"
#include "assembler_output.h"
#include "assembler_regions.h"

namespace racetrack::capture {

// Calls that allocate or release memory (their MEMORY2 records only confirm them).
bool is_memory_call(ApiKind kind);
// Module globals (CUPTI reports them with correlation 0 at module load).
bool is_static(const MemoryRecord& record);

class MemoryOps {
 public:
  MemoryOps(TraceOutput& out, RegionTable& regions, ArrayTable& arrays)
      : out_(out), regions_(regions), arrays_(arrays) {}

  // The Alloc or Free op(s) of an allocation call; `stream` is its stream for
  // stream-ordered calls, else 0. Returns how many frees named no live region.
  uint64_t write(const Call& call, uint32_t stream, uint32_t device, uint32_t nvtx);
  // Alloc/Free ops for the MEMORY2 records of memory another call allocated,
  // at that call's position (before its own op).
  void write_nested(const Call& call, uint32_t nvtx);
  // A module global, defined now, live from the start of the trace.
  void add_static(const MemoryRecord& record);

 private:
  void alloc(const Call& call, v1::AddressSpace space, v1::RegionOrigin origin, uint64_t base, uint64_t bytes,
             uint32_t device, uint32_t stream, uint32_t nvtx);
  void free(const Call& call, const LiveRegion& region, uint32_t stream, bool device_sync, uint32_t nvtx);
  v1::Op& begin_op(const Call& call, uint32_t stream, uint32_t nvtx);

  TraceOutput& out_;
  RegionTable& regions_;
  ArrayTable& arrays_;
};

}  // namespace racetrack::capture
