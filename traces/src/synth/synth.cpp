// The public entry of the generator: sets up the trace, runs the warm-up
// iteration, sizes the run to the requested op count, places the requested
// injections and runs the rest.
#include "racetrack/traces/synth.h"

#include <algorithm>
#include <iterator>
#include <sstream>

#include "racetrack/traces/describe.h"
#include "training_step.h"

namespace racetrack {

std::string_view shape_name(HazardShape shape) {
  static constexpr std::string_view kNames[] = {"C1",  "C2",  "C3",  "C4",  "C5",          "C6",
                                                "C7",  "C8",  "C9",  "C10", "C11",         "C12",
                                                "C13", "C15", "C14", "C16", "C16_unjoined", "C12_bucket",
                                                "C6_allgather", "C11_stash"};
  static_assert(std::size(kNames) == kHazardShapeCount);
  return kNames[static_cast<int>(shape)];
}

bool is_collective_shape(HazardShape shape) {
  return shape == HazardShape::kC12Bucket || shape == HazardShape::kC6AllGather ||
         shape == HazardShape::kC11Stash;
}

bool SynthOptions::collectives() const {
  if (world_size > 1) return true;
  for (int s = 0; s < kHazardShapeCount; ++s)
    if (inject[s] && is_collective_shape(static_cast<HazardShape>(s))) return true;
  return false;
}

Result<SynthResult> synthesize(const SynthOptions& options, TraceWriter& writer) {
  using namespace synth;
  if (options.layers == 0 || options.microbatches == 0)
    return make_error("synth needs at least one layer and one microbatch");
  if (options.activation_bytes < 4096) return make_error("synth activations must be at least 4096 bytes");
  if (options.code_modes && (options.known_modes || options.analyzer_version == 0))
    return make_error("synth code modes go with raw words and need the analyzer version to store");

  TraceBuilder builder(writer);
  v1::Header& header = builder.header();
  header.set_producer("racetrack-synth");
  header.set_time_origin_ns(1764460800000000000);  // fixed, so output is deterministic
  header.set_rank(options.rank);
  if (!options.host.empty()) header.set_host(options.host);
  v1::Device& device = *header.add_devices();
  device.set_id(0);
  device.set_name("NVIDIA H200 (modelled)");
  device.set_cc_major(9);
  device.set_memory_bytes(143771336704);
  device.set_h2d_copy_engines(1);
  device.set_d2h_copy_engines(1);
  // Stream ids must match kCompute / kOffload / kReload / kInput / kCapture /
  // kCheckpoint / kGraphSide / kComm.
  builder.stream("compute", v1::ROLE_COMPUTE, v1::STREAM_LEGACY_DEFAULT);
  builder.stream("offload_d2h", v1::ROLE_D2H, v1::STREAM_NON_BLOCKING);
  builder.stream("reload_h2d", v1::ROLE_H2D, v1::STREAM_NON_BLOCKING);
  builder.stream("input_h2d", v1::ROLE_H2D, v1::STREAM_NON_BLOCKING);
  builder.stream("graph_capture", v1::ROLE_COMPUTE, v1::STREAM_NON_BLOCKING);
  builder.stream("checkpoint_io", v1::ROLE_OTHER, v1::STREAM_NON_BLOCKING);
  builder.stream("graph_side", v1::ROLE_COMPUTE, v1::STREAM_NON_BLOCKING);
  if (options.collectives()) builder.stream("nccl_comm", v1::ROLE_COMM, v1::STREAM_NON_BLOCKING);
  builder.thread("python main");

  Emitter emitter(builder, options, options.seed);
  TrainingLoop loop(emitter, options);
  loop.iteration(0);
  const uint64_t per_iteration = std::max<uint64_t>(builder.op_count(), 1);
  uint64_t iterations = (options.target_ops + per_iteration - 1) / per_iteration;
  const bool injecting =
      std::any_of(options.inject.begin(), options.inject.end(), [](uint32_t n) { return n; });
  // Injections land after the warm-up and before the last iteration, which
  // stays free so a request aimed late still finds a place to go.
  iterations = std::max<uint64_t>(iterations, injecting ? 3 : 1);
  for (uint64_t from : options.inject_from_iteration) iterations = std::max(iterations, from + 1);

  // Spread the injections over the iterations after the warm-up.
  const uint64_t sites = loop.sites_per_iteration();
  for (int s = 0; s < kHazardShapeCount; ++s)
    for (uint32_t n = 0; n < options.inject[s]; ++n) {
      const uint64_t from = options.inject_from_iteration[s];
      const uint64_t site = from ? sites * from : sites + emitter.rng().below(sites * (iterations - 2));
      loop.request({static_cast<HazardShape>(s), site, 0});
    }

  for (uint64_t i = 1; i < iterations; ++i) loop.iteration(i);
  if (auto status = builder.finish(); !status) return status.error();
  if (!emitter.layout_error().empty()) return make_error(emitter.layout_error());

  SynthResult result = std::move(emitter.result());
  result.ops = builder.op_count();
  result.iterations = iterations;
  result.not_placed = loop.unplaced();
  std::sort(result.injected.begin(), result.injected.end(),
            [](const InjectedHazard& a, const InjectedHazard& b) { return a.first_seq < b.first_seq; });
  return result;
}

std::string ground_truth_json(const SynthOptions& options, const SynthResult& result) {
  const char* modes = options.known_modes ? "known" : options.code_modes ? "code" : "raw";
  std::ostringstream out;
  out << "{\n  \"seed\": " << options.seed << ",\n  \"ops\": " << result.ops
      << ",\n  \"iterations\": " << result.iterations
      << ",\n  \"known_modes\": " << (options.known_modes ? "true" : "false") << ",\n  \"modes\": \"" << modes
      << "\",\n  \"injected\": [";
  for (size_t i = 0; i < result.injected.size(); ++i) {
    const InjectedHazard& h = result.injected[i];
    out << (i ? "," : "") << "\n    {\"shape\": \"" << shape_name(h.shape)
        << "\", \"first_seq\": " << h.first_seq << ", \"second_seq\": " << h.second_seq << ", \"kind\": \""
        << h.kind << "\", \"space\": \"" << space_name(h.space) << "\", \"address\": \"" << hex(h.address)
        << "\", \"bytes\": " << h.bytes << ", \"iteration\": " << h.iteration << ", \"where\": \"" << h.where
        << "\"}";
  }
  out << (result.injected.empty() ? "" : "\n  ") << "],\n  \"not_placed\": {";
  bool first = true;
  for (int s = 0; s < kHazardShapeCount; ++s) {
    if (!result.not_placed[s]) continue;
    out << (first ? "" : ", ") << "\"" << shape_name(static_cast<HazardShape>(s))
        << "\": " << result.not_placed[s];
    first = false;
  }
  out << "}\n}\n";
  return out.str();
}

}  // namespace racetrack
