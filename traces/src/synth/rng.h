// A small deterministic random source (splitmix64): the same seed gives the
// same numbers on every platform, unlike std:: distributions.
#pragma once

#include <cstdint>

namespace racetrack::synth {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); n > 0.
  uint64_t below(uint64_t n) { return next() % n; }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // `value` scaled by a factor uniform in [1 - spread, 1 + spread].
  int64_t jitter(int64_t value, double spread) {
    return static_cast<int64_t>(static_cast<double>(value) * (1.0 + spread * (2.0 * unit() - 1.0)));
  }

 private:
  uint64_t state_;
};

}  // namespace racetrack::synth
