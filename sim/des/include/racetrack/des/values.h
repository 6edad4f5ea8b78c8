// Value tracking: every write stamps its bytes with a version (the writing
// op), every read sees versions. The reference is the sequential run in
// submission order; a read that sees another version than the reference is
// a manifested corruption, and what the reading op writes is tainted, so
// taint flows to everything computed from it. Versions are kept per byte
// range, not per byte.
#pragma once

#include <map>
#include <set>
#include <vector>

#include "racetrack/des/engine.h"
#include "racetrack/race/hazard.h"

namespace racetrack::des {

inline constexpr uint32_t kInitial = UINT32_MAX;  // bytes no op has written

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

// In the sequential reference, bytes [lo, hi) of a read were last written
// by op `writer` (kInitial: by nobody).
struct ExpectedWriter {
  uint64_t lo, hi;
  uint32_t writer;
};

class ValueTracker : public MemoryObserver {
 public:
  // Runs the sequential reference.
  explicit ValueTracker(const Program& program);

  void on_start(uint32_t op) override;
  void on_end(uint32_t op) override;
  // After the run: compares the final memory with the reference's.
  void finish();

  const std::vector<Mismatch>& mismatches() const { return mismatches_; }
  // What a read access (an index into Program::accesses) should see.
  std::pair<const ExpectedWriter*, const ExpectedWriter*> expected(uint32_t access) const {
    return {expected_.data() + expected_begin_[access], expected_.data() + expected_begin_[access + 1]};
  }
  // What an external access (an index into Program::externals) reads.
  std::pair<const ExpectedWriter*, const ExpectedWriter*> expected_external(uint32_t k) const {
    return {external_expected_.data() + external_begin_[k],
            external_expected_.data() + external_begin_[k + 1]};
  }
  const std::vector<bool>& tainted() const { return tainted_; }
  uint64_t tainted_count() const;

 private:
  struct Segment {
    uint64_t hi;
    uint32_t writer;
    bool tainted;
  };
  using Map = std::map<uint64_t, Segment>;
  // Each space's segments; consecutive accesses mostly stay in one space,
  // so the last one found is kept.
  struct Spaces {
    std::map<race::SpaceKey, Map> maps;
    race::SpaceKey last_space = 0;
    Map* last = nullptr;
    Map& operator[](race::SpaceKey space) {
      if (!last || space != last_space) {
        last = &maps[space];
        last_space = space;
      }
      return *last;
    }
  };
  using Expected = ExpectedWriter;

  void retire(const Retirement& r);
  // Compares what a read of `acc` by op `reader` sees with the reference.
  void compare(uint32_t reader, const SimAccess& acc, const ExpectedWriter* e, const ExpectedWriter* e_end,
               bool& tainted);
  static void write(Map& map, uint64_t lo, uint64_t hi, uint32_t writer, bool tainted);
  // Segments of `map` over [lo, hi), gaps as kInitial.
  template <typename Out>
  static void view(const Map& map, uint64_t lo, uint64_t hi, Out& out, bool* any_tainted);

  const Program& p_;
  Spaces reference_final_, memory_;
  SpillArray<Expected> expected_;            // per read access, in order
  SpillArray<uint32_t> expected_begin_;      // by access index: first entry in expected_
  std::vector<Expected> external_expected_;  // per external read, by external index
  std::vector<uint32_t> external_begin_;
  std::vector<bool> tainted_;  // by op
  std::vector<Mismatch> mismatches_;
  std::vector<Expected> scratch_;
};

}  // namespace racetrack::des
