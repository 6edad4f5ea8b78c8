// racetrack sim figures on clean synth traces of 10^5, 10^6 (and with
// --large 10^7) ops: the schedule as given simulated with value tracking
// (the ValueTracker observer, including its sequential reference run) and
// timing only (no observer), in simulated ops/s on one core, and what value
// tracking costs as a multiple of timing only. Target: >= 5 M ops/s (#18) with
// value tracking at 10^6. Loading the trace (load_program: decoding and
// happens-before) is timed on its own and excluded.
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "bench_support.h"
#include "racetrack/des/values.h"
#include "racetrack/traces/synth.h"
#include "racetrack/traces/trace_io.h"

namespace rt = racetrack;
namespace des = racetrack::des;
using racetrack::bench::best_seconds;
using racetrack::bench::fail;

namespace {

std::string make_trace(uint64_t ops) {
  rt::SynthOptions options;
  options.target_ops = ops;
  return racetrack::bench::synth_trace("sim-clean-" + std::to_string(ops), options);
}

int64_t simulate(const des::Program& p, des::MemoryObserver* observer) {
  auto r = des::run(p, {}, observer);
  if (!r) fail(r.error());
  return r->makespan_ns;
}

}  // namespace

int main(int argc, char** argv) {
  std::printf(
      "racetrack sim benchmark (one core; the schedule as given; target >= 5 M ops/s with value tracking at "
      "10^6)\n\n");
  std::printf("%10s  %12s  %18s  %18s  %12s  %9s\n", "ops", "load", "timing only", "value tracking",
              "tracking cost",
              "peak RSS");  // of the process so far
  double tracked_at_million = 0;
  for (uint64_t n : racetrack::bench::bench_sizes(argc, argv)) {
    const std::string path = make_trace(n);
    const int runs = n >= 10000000 ? 1 : 3;
    std::optional<des::Program> program;
    const double load = best_seconds(1, [&] {
      auto p = des::load_program(path, {});
      if (!p) fail(p.error());
      program.emplace(std::move(*p));
    });
    const des::Program& p = *program;
    const double ops = static_cast<double>(p.ops.size());
    int64_t plain_makespan = 0, tracked_makespan = 0;
    const double plain = best_seconds(runs, [&] { plain_makespan = simulate(p, nullptr); });
    uint64_t mismatches = 0;
    const double tracked = best_seconds(runs, [&] {
      const des::SequentialReference reference(p);
      des::ValueTracker tracker(p, reference);
      tracked_makespan = simulate(p, &tracker);
      tracker.finish();
      mismatches = tracker.mismatches().size();
    });
    if (plain_makespan != tracked_makespan || mismatches != 0) {
      std::fprintf(stderr, "inconsistent runs: makespan %lld vs %lld, %llu mismatches on a clean trace\n",
                   static_cast<long long>(plain_makespan), static_cast<long long>(tracked_makespan),
                   static_cast<unsigned long long>(mismatches));
      return 1;
    }
    if (n == 1000000) tracked_at_million = ops / tracked;
    std::printf("%10.0f  %6.2f s      %8.2f M ops/s     %8.2f M ops/s     %8.2fx     %6.0f MiB\n", ops, load,
                ops / plain / 1e6, ops / tracked / 1e6, tracked / plain,
                static_cast<double>(racetrack::bench::peak_rss_bytes()) / (1 << 20));
  }
  if (tracked_at_million > 0)
    std::printf("\nvalue tracking at 10^6 ops: %.2f M ops/s (target >= 5 M ops/s): %s\n",
                tracked_at_million / 1e6, tracked_at_million >= 5e6 ? "met" : "NOT met");
  return 0;
}
