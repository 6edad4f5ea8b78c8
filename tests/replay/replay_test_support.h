// Helpers shared by the `racetrack replay` suites: replay options sized for
// tests, small synth traces, and the host backend run directly.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "host_backend.h"
#include "racetrack/replay/replay.h"
#include "sim_test_support.h"

namespace racetrack::replay_test {

using sim_test::ManifestHazard;
using sim_test::Sample;

// Under AddressSanitizer the host backend runs several times slower: the
// synth traces shrink so the suite stays fast.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// Replay as fast as possible, under --stress with its holds sized from the
// pairs' modelled gaps (at least 20 ms more than the gap).
inline replay::ReplayOptions stress_options(uint32_t repeat, uint64_t seed = 1) {
  replay::ReplayOptions o;
  o.stress = true;
  o.repeat = repeat;
  o.seed = seed;
  o.traced_timing = false;
  return o;
}

inline replay::ReplayReport replay(const std::string& path, const replay::ReplayOptions& options) {
  auto r = replay::replay_file(path, options);
  EXPECT_TRUE(r) << path << ": " << (r ? "" : r.error().describe());
  return r ? std::move(*r) : replay::ReplayReport{};
}

inline std::vector<Sample> samples(bool race) {
  std::vector<Sample> out;
  for (Sample& s : sim_test::manifest())
    // A race sample whose hazards sim and replay do not model is left out.
    if (s.race() == race && (!race || !s.hazards.empty())) out.push_back(std::move(s));
  return out;
}

inline std::string sample_param_name(const ::testing::TestParamInfo<Sample>& info) {
  return sim_test::sample_name(info.param);
}

// A small synth trace with small activations, so the replay's arenas and
// granule walks stay cheap: about `ops` ops.
inline SynthOptions small_synth(bool known_modes, racetrack::Schedule schedule, uint64_t seed, uint64_t ops) {
  SynthOptions o = sim_test::small_synth(known_modes, schedule, seed);
  o.target_ops = ops;
  o.activation_bytes = 65536;
  return o;
}

// The host backend on a loaded program, with some ops held back.
inline replay::HostRun run_host(const des::Program& p, const replay::ArenaPlan& plan,
                                const des::SequentialReference& reference,
                                std::unordered_map<uint32_t, int64_t> delays = {}) {
  replay::HostRunOptions o;
  o.traced_timing = false;
  o.delays = std::move(delays);
  auto run = replay::run_on_host(p, plan, reference, o);
  EXPECT_TRUE(run) << (run ? "" : run.error().describe());
  return run ? std::move(*run) : replay::HostRun{};
}

// "op #7 saw #0 instead of #4", for failure messages.
inline std::string describe(const des::Program& p, const des::Mismatch& m) {
  auto seq = [&](uint32_t i) {
    return i == des::kInitial ? std::string("none") : "#" + std::to_string(p.ops[i].seq);
  };
  return (m.reader == des::kInitial ? std::string("the final contents") : "op " + seq(m.reader)) + " saw " +
         seq(m.observed) + " instead of " + seq(m.expected);
}

}  // namespace racetrack::replay_test
