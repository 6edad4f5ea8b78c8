// Helpers shared by the `racetrack sim` suites: the samples' manifest,
// small synth traces, loading a Program, and value-tracked runs.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "racetrack/code/access_modes.h"
#include "racetrack/des/simulate.h"
#include "racetrack/traces/synth.h"
#include "racetrack/traces/trace_io.h"
#include "test_support.h"

namespace racetrack {
inline void PrintTo(Schedule s, std::ostream* os) {
  *os << (s == Schedule::k1F1B ? "1f1b" : "sequential");
}
}  // namespace racetrack

namespace racetrack::sim_test {

inline const std::string kSamples = RACETRACK_SAMPLES_DIR;

// A hazard the manifest expects: the pair and the bytes it races on.
struct ManifestHazard {
  uint64_t first_seq = 0, second_seq = 0;
  std::string kind;
  uint64_t lo = 0, hi = 0;
};

struct Sample {
  std::string file;  // path under kSamples
  std::vector<ManifestHazard> hazards;
  std::string rule;  // the manifest's rule, e.g. "graph-captured-address"
  bool race() const { return file.ends_with(".race.pbtxt"); }
  // C16's use-after-free: the replay reaches freed memory whatever the
  // ordering, so no added wait fixes it (its clean twin re-captures).
  bool fixed_by_ordering() const { return rule != "graph-captured-address"; }
};

// Whether stale bytes `b` show RAW hazard `h`'s second op reading around its
// first: it missed the first's write (an external agent's write carries its
// declaration's seq), or (a graph launch through the
// captured address of a region freed at the first op) it read what a later
// owner of the bytes wrote there instead of what the freed region held.
inline bool reads_around(const des::StaleBytes& b, const ManifestHazard& h, const race::Hazard& hazard) {
  if (b.reader_seq != h.second_seq) return false;
  if (hazard.second.graph_lifetime == race::GraphLifetime::kCapturedFreed)
    return b.observed_seq > h.first_seq && b.expected_seq < h.first_seq;
  return b.expected_seq == (hazard.first.external_agent ? hazard.first.external_seq : h.first_seq);
}

inline std::vector<Sample> manifest() {
  std::ifstream in(kSamples + "/manifest.json");
  const nlohmann::json m = nlohmann::json::parse(in);
  std::vector<Sample> out;
  for (const auto& s : m.at("samples")) {
    Sample sample{kSamples + "/" + s.at("file").get<std::string>(), {}, s.value("rule", "")};
    for (const auto& h : s.at("hazards")) {
      // Hazards sim and replay do not model (docs/sim.md says which).
      if (!h.value("simulated", true)) continue;
      const uint64_t lo = std::stoull(h.at("address").get<std::string>(), nullptr, 16);
      sample.hazards.push_back({h.at("first_seq").get<uint64_t>(), h.at("second_seq").get<uint64_t>(),
                                h.at("kind").get<std::string>(), lo, lo + h.at("bytes").get<uint64_t>()});
    }
    out.push_back(std::move(sample));
  }
  return out;
}

inline void PrintTo(const Sample& s, std::ostream* os) {
  *os << s.file;
}

// Names a sample for parameterised test names: "c1_reload_not_waited_race".
inline std::string sample_name(const Sample& s) {
  std::string name = std::filesystem::path(s.file).stem().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

// A small trace (a few thousand ops): layers 2, microbatches 3.
inline SynthOptions small_synth(bool known_modes, racetrack::Schedule schedule = racetrack::Schedule::k1F1B,
                                uint64_t seed = 1) {
  SynthOptions o;
  o.seed = seed;
  o.target_ops = 3000;
  o.layers = 2;
  o.microbatches = 3;
  o.known_modes = known_modes;
  o.schedule = schedule;
  return o;
}

// A trace of about `ops` ops with the default model's size and durations
// (8 layers, 4 microbatches, 8 MiB activations), so the pair of an injected
// hazard sits as far apart as in a real step: tens of milliseconds and
// hundreds of ops for C1.
inline SynthOptions far_synth(uint64_t seed, uint64_t ops) {
  SynthOptions o = small_synth(true, racetrack::Schedule::k1F1B, seed);
  o.target_ops = ops;
  o.layers = 8;
  o.microbatches = 4;
  o.analyzer_version = code::kAnalyzerVersion;  // C15's kernel facts
  return o;
}

// The synth shapes sim and replay reproduce: not C16's unjoined side
// stream, which they do not model (a graph launch is one op; the sample's
// manifest entry says "simulated": false).
inline std::vector<int> simulated_shapes() {
  std::vector<int> out;
  for (int s = 0; s < kHazardShapeCount; ++s)
    if (static_cast<HazardShape>(s) != HazardShape::kC16Unjoined) out.push_back(s);
  return out;
}

// Those the host replay's far-pair suite takes: C14's and C16's pairs are
// not ordered-but-far pairs (an external access lands at its observer, a
// graph launch reads a freed region's bytes), so their hold-back is not
// sized from a traced gap; the replay sample suites cover both shapes.
// C12_bucket's WAR pair (the bucket's copy-out vs its refill) queues behind
// its WAW pair (the all-reduce vs the refill) on the communication stream:
// holding the all-reduce holds the copy-out too, whose read then sees the
// all-reduce's late write, not the refill's, so the one run of holds cannot
// show both; the simulator's adversarial schedules cover it (sim suites).
inline std::vector<int> replayed_far_shapes() {
  std::vector<int> out = simulated_shapes();
  std::erase(out, static_cast<int>(HazardShape::kC14));
  std::erase(out, static_cast<int>(HazardShape::kC16));
  std::erase(out, static_cast<int>(HazardShape::kC12Bucket));
  return out;
}

// Those the CUDA lowering takes: `--backend cuda` refuses external agents'
// accesses (C14, docs/replay.md); C12_bucket's holds mask its WAR pair as
// above.
inline std::vector<int> lowered_shapes() {
  std::vector<int> out = simulated_shapes();
  std::erase(out, static_cast<int>(HazardShape::kC14));
  std::erase(out, static_cast<int>(HazardShape::kC12Bucket));
  return out;
}

// (shape, seed) for the suites that inject one shape at a time.
using ShapeSeed = std::tuple<int, uint64_t>;

inline std::string shape_seed_name(const ::testing::TestParamInfo<ShapeSeed>& info) {
  return std::string(shape_name(static_cast<HazardShape>(std::get<0>(info.param)))) + "_seed" +
         std::to_string(std::get<1>(info.param));
}

inline SynthResult synth_to(const std::string& path, const SynthOptions& options) {
  auto writer = TraceWriter::create(path, options.writer);
  EXPECT_TRUE(writer) << writer.error().describe();
  if (!writer) return {};
  auto result = synthesize(options, *writer);
  EXPECT_TRUE(result) << (result ? "" : result.error().describe());
  EXPECT_TRUE(writer->close());
  return result ? *result : SynthResult{};
}

inline des::Program load(const std::string& path, const des::CostModel& costs = {}) {
  auto p = des::load_program(path, costs);
  EXPECT_TRUE(p) << (p ? "" : p.error().describe());
  return p ? std::move(*p) : des::Program{};
}

inline des::SimReport simulate(const std::string& path, const des::SimOptions& options) {
  auto r = des::simulate_file(path, options);
  EXPECT_TRUE(r) << path << ": " << (r ? "" : r.error().describe());
  return r ? std::move(*r) : des::SimReport{};
}

// A run with value tracking: its times and the reads that saw a version
// other than the sequential run's (the final state excluded).
struct TrackedRun {
  des::RunResult run;
  std::vector<des::Mismatch> corrupted_reads;
};

inline TrackedRun tracked_run(const des::Program& p, const des::Schedule& s) {
  const des::SequentialReference reference(p);
  des::ValueTracker tracker(p, reference);
  auto r = des::run(p, s, &tracker);
  EXPECT_TRUE(r) << (r ? "" : r.error().describe());
  TrackedRun out;
  if (!r) return out;
  out.run = std::move(*r);
  for (const des::Mismatch& m : tracker.mismatches())
    if (m.reader != des::kInitial) out.corrupted_reads.push_back(m);
  return out;
}

// The what-if of `r` made edits and left no hazard and no corrupting
// schedule among the fixed run, one adversarial run per hazard and
// `jitter_schedules` jitter runs; its cost is a finite change.
inline void expect_fixed(const des::SimReport& r, uint64_t jitter_schedules) {
  const des::WhatIf& w = r.what_if;
  ASSERT_TRUE(w.ran);
  EXPECT_GT(w.edits, 0u);
  EXPECT_EQ(w.hazards_left, 0u);
  EXPECT_EQ(w.corrupted_schedules, 0u) << des::format_sim_text(r);
  EXPECT_EQ(w.schedules_tried, 1 + r.hazards.size() + jitter_schedules);
  EXPECT_GT(w.makespan_ns, 0);
  EXPECT_TRUE(std::isfinite(w.makespan_change_pct));
}

inline bool any_manifested(const des::SimReport& r) {
  return std::any_of(r.hazards.begin(), r.hazards.end(),
                     [](const des::HazardVerdict& v) { return v.manifested; });
}

}  // namespace racetrack::sim_test
