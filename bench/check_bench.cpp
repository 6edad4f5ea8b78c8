// racetrack check figures on synth traces of 10^5, 10^6 (and with --large
// 10^7) ops: ops/s, check time as a ratio of the time to read and decode the
// same trace on one thread (targets: clean <= 1.2x, injected <= 1.5x with
// fixes verified, raw words <= 1.5x), the naive baseline's time over
// check's (naive_checker.h; target >= 2x on clean traces), throughput per
// size (should be flat), and peak memory of a process that only checks
// (target < 1 GiB at 10^7).
#include <cstdio>

#include "bench_support.h"
#include "naive_checker.h"
#include "racetrack/race/checker.h"
#include "racetrack/traces/synth.h"
#include "racetrack/traces/trace_io.h"

namespace rt = racetrack;
using racetrack::bench::best_seconds;
using racetrack::bench::decode_all;

namespace {


rt::race::CheckResult check(const std::string& path) {
  auto result = rt::race::check_file(path, {});
  if (!result) {
    std::fprintf(stderr, "%s\n", result.error().describe().c_str());
    std::exit(2);
  }
  return std::move(*result);
}

std::string make_trace(const char* name, uint64_t ops, bool known, bool inject) {
  rt::SynthOptions options;
  options.target_ops = ops;
  options.known_modes = known;
  if (inject) options.inject.fill(2);
  return racetrack::bench::synth_trace(std::string(name) + "-" + std::to_string(ops), options);
}

void row(const char* what, const std::string& path, double target) {
  uint64_t ops = 0;
  const double decode = best_seconds(3, [&] { ops = decode_all(path); });
  rt::race::CheckResult result;
  const double took = best_seconds(3, [&] { result = check(path); });
  const double naive = best_seconds(3, [&] { racetrack::bench::naive_check(path); });
  const double peak = racetrack::bench::child_peak_mib([&] { check(path); });
  std::printf(
      "%-26s %9llu ops  check %5.2f Mops/s  %.2fx decode (target <= %.1fx)  naive/check %.2fx  %8llu hazards, "
      "%3llu shown groups  peak %6.1f MiB\n",
      what, static_cast<unsigned long long>(ops), static_cast<double>(ops) / took / 1e6, took / decode, target,
      naive / took, static_cast<unsigned long long>(result.hazards),
      static_cast<unsigned long long>(result.shown_groups()), peak);
}

}  // namespace

int main(int argc, char** argv) {
  std::printf(
      "racetrack check benchmark (best of 3; check reads on a thread of its own; naive: one thread, vector clocks and a "
      "merging std::map range map, target check >= 2x faster on clean traces)\n\n");
  for (uint64_t n : racetrack::bench::bench_sizes(argc, argv)) {
    row(("clean synth " + std::to_string(n)).c_str(), make_trace("check-clean", n, true, false), 1.2);
    row(("injected synth " + std::to_string(n)).c_str(), make_trace("check-injected", n, true, true), 1.5);
    row(("raw-words synth " + std::to_string(n)).c_str(), make_trace("check-raw", n, false, false), 1.5);
    std::printf("\n");
  }
  std::printf("two decodes side by side take %.2fx one alone here (1.0x on two real cores)\n",
              racetrack::bench::side_by_side_slowdown(make_trace("check-clean", 1000000, true, false)));
  return 0;
}
