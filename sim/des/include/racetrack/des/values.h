// Value tracking: every write stamps its bytes with a version (the writing
// op), every read sees versions. The reference is the sequential run in
// submission order; a read that sees another version than the reference is
// a manifested corruption, and what the reading op writes is tainted, so
// taint flows to everything computed from it. Versions are kept per byte
// range, not per byte.
#pragma once

#include <vector>

#include "racetrack/des/engine.h"
#include "racetrack/des/reference.h"
#include "racetrack/des/version_map.h"
#include "racetrack/race/hazard.h"

namespace racetrack::des {

// A read (or, for the final state, the end of the run) that saw `observed`
// where the sequential run has `expected`, on [lo, hi).
struct Mismatch {
  uint32_t reader = kInitial;  // op index; kInitial for the final state
  uint32_t expected = kInitial, observed = kInitial;
  race::SpaceKey space = 0;
  uint64_t lo = 0, hi = 0;
};

// Whether a mismatch demonstrates hazard `h` between ops at indices a < b:
// b missed a's write (RAW), a read b's write or a later one (WAR: b
// overwrote the bytes first), or the two writes landed in the other order
// (WAW). Op indices follow submission order.
bool shows_hazard(const Mismatch& m, uint32_t a, uint32_t b, const race::Hazard& h);

// The ops that stand for a hazard's two sides in a run. An external agent's
// access (C14) stamps its declaration's version and is read at its
// observer's start; holding that observer back delays it.
struct HazardOps {
  uint32_t first = 0, second = 0;
  uint32_t first_version = 0;  // the version the first side's writes stamp
  uint32_t first_reader = 0;   // the op whose start checks the first side's reads
  uint32_t held = 0;           // the op --adversarial and --stress hold back
};
HazardOps hazard_ops(const Program& p, const race::Hazard& h);
bool shows_hazard(const Mismatch& m, const HazardOps& ops, const race::Hazard& h);

// One run's memory, compared with the sequential reference at every read.
class ValueTracker : public MemoryObserver {
 public:
  // Keeps `reference`, which must outlive it.
  ValueTracker(const Program& program, const SequentialReference& reference);
  ValueTracker(const Program& program, SequentialReference&& reference) = delete;

  void on_start(uint32_t op) override;
  void on_end(uint32_t op) override;
  // After the run: compares the final memory with the reference's.
  void finish();

  const std::vector<Mismatch>& mismatches() const { return mismatches_; }
  const std::vector<bool>& tainted() const { return tainted_; }
  uint64_t tainted_count() const;

 private:
  // Compares what a read of `acc` by op `reader` sees with the reference.
  void compare(uint32_t reader, const SimAccess& acc, const ExpectedWriter* e, const ExpectedWriter* e_end,
               bool& tainted);

  const Program& p_;
  const SequentialReference& reference_;
  VersionSpaces memory_;
  std::vector<bool> tainted_;  // by op
  std::vector<Mismatch> mismatches_;
  std::vector<ExpectedWriter> scratch_;
};

}  // namespace racetrack::des
