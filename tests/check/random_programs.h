// Seeded random CUDA programs for differential testing of `racetrack check`:
// two to four streams of every flavour (sometimes on two devices), one or two
// host threads, events, small overlapping device and host regions, and 10-40
// ops of every kind that orders or touches memory (kernels, copies, memsets,
// records, waits, syncs, queries, host accesses and functions, frees with
// reuse of the address, graph launches). The same seed gives the same
// program on every platform.
#pragma once

#include <cstdint>
#include <random>

#include "racetrack/traces/container.h"

namespace racetrack::check_test {

// std::mt19937_64 is specified bit for bit; the std distributions are not,
// so draws go through these helpers.
class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  // Uniform in [lo, hi] (inclusive); the modulo bias is irrelevant here.
  uint64_t uniform(uint64_t lo, uint64_t hi) { return lo + engine_() % (hi - lo + 1); }
  // True with probability num/den.
  bool chance(uint64_t num, uint64_t den) { return uniform(1, den) <= num; }

 private:
  std::mt19937_64 engine_;
};

// A valid one-chunk trace (it passes racetrack::Validator).
v1::Chunk random_program(uint64_t seed);

}  // namespace racetrack::check_test
