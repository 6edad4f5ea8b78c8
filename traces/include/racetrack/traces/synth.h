// The workload generator behind `racetrack synth`: realistic traces of
// training steps with activation offloading and recompute (modelled on
// Megatron-LM's fine-grained activation offloading, see
// docs/synth.md), optionally with injected hazards of the catalogue shapes
// that fit a training step (C1-C16) and a ground-truth list of them. Deterministic for given options and
// seed; streams its output so memory stays bounded at any size.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "racetrack/traces/container.h"

namespace racetrack {

// The catalogue shapes synth can inject (docs/hazards.md). New shapes are
// appended, so the values of existing ones never change.
// kC16 is a captured address freed since capture; kC16Unjoined, C16's side
// stream left unjoined at capture end. The last three are races with the
// communication stream of a data-parallel run (docs/distributed.md):
// kC12Bucket, a gradient bucket refilled while its all-reduce still uses it;
// kC6AllGather, an all-gather's output read before its wait; kC11Stash, a
// collective's input freed after a join that misses its third stream.
// clang-format off
enum class HazardShape {
  kC1, kC2, kC3, kC4, kC5, kC6, kC7, kC8, kC9, kC10, kC11, kC12, kC13, kC15, kC14, kC16, kC16Unjoined,
  kC12Bucket, kC6AllGather, kC11Stash
};
// clang-format on
inline constexpr int kHazardShapeCount = 20;
std::string_view shape_name(HazardShape shape);  // "C1".."C16", "C16_unjoined", "C12_bucket", ...
// Whether the shape needs the data-parallel collectives in the trace.
bool is_collective_shape(HazardShape shape);

enum class Schedule { kSequential, k1F1B };

struct SynthOptions {
  uint64_t seed = 1;
  uint64_t target_ops = 100000;  // approximate; whole iterations are generated
  uint32_t layers = 8;
  uint32_t microbatches = 4;
  Schedule schedule = Schedule::k1F1B;
  uint64_t activation_bytes = 8ull << 20;  // one activation tensor
  // Kernels carry exact extents and known modes (what the PyTorch integration
  // records), or only raw argument words over driver segments (bare CUPTI).
  bool known_modes = true;
  // With raw words (known_modes false): also one module whose stored
  // analysis gives every kernel's per-word modes, as racetrack's machine-
  // code analysis of version `analyzer_version` (racetrack_code's
  // kAnalyzerVersion, which the caller passes) would report them. C15 with
  // known modes needs it too (the PDL secondary's stored analysis); without
  // it C15 is not placed.
  bool code_modes = false;
  uint32_t analyzer_version = 0;
  // How many of each shape to inject, after the warm-up iteration, at seeded
  // random places, or from a chosen iteration on (0: random).
  std::array<uint32_t, kHazardShapeCount> inject{};
  std::array<uint64_t, kHazardShapeCount> inject_from_iteration{};
  // Data parallelism: with world_size > 1 (or a collective shape injected)
  // the step ends each layer's backward with a gradient all-reduce on a
  // communication stream, gathers the embedding at the start of each
  // iteration and all-reduces the loss for logging. `rank` and `host` go
  // into the header (-1: not part of a distributed job).
  uint32_t world_size = 1;
  int32_t rank = -1;
  std::string host;
  bool collectives() const;
  WriterOptions writer;
};

// One injected hazard: the racing pair as the checker should report it.
struct InjectedHazard {
  HazardShape shape;
  uint64_t first_seq = 0;
  uint64_t second_seq = 0;
  std::string kind;  // RAW / WAR / WAW
  v1::AddressSpace space = v1::SPACE_DEVICE;
  uint64_t address = 0;  // overlap start
  uint64_t bytes = 0;    // overlap length
  uint64_t iteration = 0;
  std::string where;  // e.g. "iteration 3, microbatch 1, layer 5 core_attn"
};

struct SynthResult {
  uint64_t ops = 0;
  uint64_t iterations = 0;
  std::vector<InjectedHazard> injected;
  // Requested injections that could not be placed because the trace ordered
  // the pair anyway (e.g. C3 under the sequential schedule), or because the
  // trace cannot carry it (C15 with known modes and no analyzer version).
  std::array<uint32_t, kHazardShapeCount> not_placed{};
};

// Writes the trace to `writer` (which is flushed, not closed).
Result<SynthResult> synthesize(const SynthOptions& options, TraceWriter& writer);

// The ground-truth sidecar as JSON ({"injected": [...]}).
std::string ground_truth_json(const SynthOptions& options, const SynthResult& result);

}  // namespace racetrack
