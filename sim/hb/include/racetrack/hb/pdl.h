// Programmatic dependent launch (PDL, docs/ordering-rules.md rule 1a): a
// kernel launched with programmatic stream serialization may start before
// the kernel in front of it on its stream finishes, and is ordered after
// that kernel only from its grid-dependency wait (cudaGridDependency-
// Synchronize, griddepcontrol.wait) on. Whether a kernel waits is a fact of
// its machine code, which the happens-before library does not read: the
// caller hands it a lookup (race::PdlWaitFacts answers it from the
// trace's code modes).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "racetrack.pb.h"
#include "racetrack/hb/vector_clock.h"

namespace racetrack::hb {

// What a kernel's machine code says about its grid-dependency wait.
enum class PdlWait : uint8_t {
  kUnknown,         // no machine code for the kernel
  kNone,            // its code never waits
  kAccessesBefore,  // it waits, but some global access may run before the wait
  kWaits,           // it waits before every global access
};
using PdlWaitLookup = std::function<PdlWait(const v1::Kernel&)>;

// Ticks [lo, hi] of a stream's own history that a PDL secondary kernel is
// not ordered after (its primaries), and why; empty when hi == 0.
struct PdlUnordered {
  uint64_t lo = 0, hi = 0;
  PdlWait wait = PdlWait::kUnknown;
  bool empty() const { return hi == 0; }
  bool contains(uint64_t tick) const { return hi && tick >= lo && tick <= hi; }
};

// Per stream: which earlier kernels its next op could overlap. Fed every
// op of the stream, in order.
class PdlChain {
 public:
  // `op` runs on the stream at tick `last_tick + 1`; `host_saw_last`: the
  // launching thread had already observed the stream's last op complete
  // (a synchronisation), so nothing can overlap it.
  PdlUnordered on_op(const v1::Op& op, uint64_t last_tick, bool host_saw_last, const PdlWaitLookup& lookup);

 private:
  uint64_t last_kernel_tick_ = 0;  // the stream's last op, when it was a kernel; else 0
  PdlUnordered last_;              // what that kernel was not ordered after
};

// A kernel launched with a programmatic event (cudaLaunchAttributeProgrammatic-
// Event, docs/ordering-rules.md rule 5a) records it at its trigger: once
// every block has triggered or exited, or as each block starts. What a wait
// on it learns: `trigger` for every waiter (what the kernel itself was
// ordered after), `full` (the kernel done) only for a dependent kernel
// whose code waits for its grid dependencies before every access.
struct ProgrammaticRecord {
  VectorClock trigger, full;
  Epoch kernel;
  uint64_t kernel_seq = 0;
  bool at_block_start = false;
};

// The clock a kernel's programmatic trigger is ordered after: its own
// clock without its stream's ticks from the first one it overlaps (`pdl`,
// rule 1a) or from itself on.
VectorClock trigger_clock(const VectorClock& kernel_clock, Epoch kernel, const PdlUnordered& pdl);

// One wait (cudaStreamWaitEvent, or a host sync or successful query) that
// bound to a programmatic record, as its agent keeps it to explain a
// hazard with the kernel.
struct ProgrammaticWait {
  uint64_t kernel_seq = 0;
  uint64_t wait_seq = 0;
  uint32_t event = 0;
  bool at_block_start = false;
  // The waiting stream's next op is a kernel (the dependent launch) and
  // what its code says about its grid-dependency wait.
  bool dependent_kernel = false;
  uint64_t dependent_seq = 0;
  PdlWait dependent_wait = PdlWait::kUnknown;
};

// The last few programmatic waits of a stream or host thread.
class ProgrammaticWaits {
 public:
  static constexpr size_t kKept = 4;
  void add(const ProgrammaticWait& w);
  // The latest wait on the kernel of submission `kernel_seq`, or null.
  const ProgrammaticWait* find(uint64_t kernel_seq) const;
  ProgrammaticWait* latest() { return waits_.empty() ? nullptr : &waits_.back(); }
  size_t size() const { return waits_.size(); }

 private:
  std::vector<ProgrammaticWait> waits_;  // oldest first
};

}  // namespace racetrack::hb
