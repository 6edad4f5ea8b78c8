// racetrack replay figures on clean synth traces of 10^4 and 10^5 ops (64 KiB
// activations): the host backend with --timing fast (ops as fast as the
// threads and their waits allow, every read checked per 4 KiB granule), in
// ops/s of the run itself, against the simulator on the same trace (des::run
// with a ValueTracker, including its sequential reference run) measured in
// the same process. The replay's figure excludes loading, the check and the
// plan (replay_file times only the run); best of three either way.
#include <cstdio>
#include <cstdlib>
#include <set>
#include <thread>

#include "bench_support.h"
#include "racetrack/des/values.h"
#include "racetrack/replay/replay.h"
#include "racetrack/traces/synth.h"
#include "racetrack/traces/trace_io.h"

namespace rt = racetrack;
namespace des = racetrack::des;
using racetrack::bench::best_seconds;
using racetrack::bench::fail;

namespace {

std::string make_trace(uint64_t ops) {
  rt::SynthOptions options;
  options.activation_bytes = 65536;
  options.target_ops = ops;
  return racetrack::bench::synth_trace("replay-clean-" + std::to_string(ops), options);
}

}  // namespace

int main() {
  std::printf("racetrack replay benchmark (host backend, --timing fast; %u hardware threads)\n\n",
              std::thread::hardware_concurrency());
  std::printf("%10s  %8s  %8s  %18s  %22s  %10s\n", "ops", "streams", "threads", "replay (host)",
              "sim (value tracking)", "replay/sim");
  for (uint64_t n : {uint64_t{10000}, uint64_t{100000}}) {
    const std::string path = make_trace(n);
    auto program = des::load_program(path, {});
    if (!program) fail(program.error());
    const des::Program& p = *program;
    const double ops = static_cast<double>(p.ops.size());
    std::set<uint32_t> streams;
    for (const des::SimOp& op : p.ops)
      if (op.device) streams.insert(op.stream);

    uint64_t mismatches = 0;
    const double sim = best_seconds(3, [&] {
      const des::SequentialReference reference(p);
      des::ValueTracker tracker(p, reference);
      auto r = des::run(p, {}, &tracker);
      if (!r) fail(r.error());
      tracker.finish();
      mismatches += tracker.mismatches().size();
    });

    rt::replay::ReplayOptions o;
    o.traced_timing = false;
    double replay_rate = 0;
    uint64_t corrupted = 0;
    for (int run = 0; run < 3; ++run) {
      auto r = rt::replay::replay_file(path, o);
      if (!r) fail(r.error());
      replay_rate = std::max(replay_rate, r->ops_per_second);
      corrupted += r->corrupted_reads;
    }
    if (mismatches || corrupted) {
      std::fprintf(stderr, "a clean trace corrupted data: %llu simulated, %llu replayed mismatches\n",
                   static_cast<unsigned long long>(mismatches), static_cast<unsigned long long>(corrupted));
      return 1;
    }
    std::printf("%10.0f  %8zu  %8zu  %12.0f ops/s  %16.0f ops/s  %9.3fx\n", ops, streams.size(),
                p.threads.size(), replay_rate, ops / sim, replay_rate / (ops / sim));
  }
  std::printf(
      "\nreplay/sim < 1: the host backend's real threads and waits cost more per op than the\n"
      "simulator's event loop; the GPU target (>= 200k ops/s issue rate) is for --backend cuda.\n");
  return 0;
}
