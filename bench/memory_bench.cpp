// Peak resident memory of each whole-trace pass, each in a process of its
// own, on synth traces of 10^6, 3*10^6 (and with --large 10^7) ops (below
// 10^6 the reader's buffers are still scaled to the file): decoding
// and validating, check, export, sim (the schedule as given; and with
// --adversarial --apply-fixes on a trace with every hazard shape injected)
// and replay on CPU threads; and, as the baseline, sim with its per-op
// arrays kept in memory instead of spilled to files (docs/sim.md,
// "Memory"). The ratio to the smallest trace's peak and the growth in bytes per op between the two largest
// say whether a pass's memory is flat in the trace's length. Target (#18): every pass flat,
// <= 300 MiB at 10^7 ops (projected from the growth when not run).
#include <cstdio>
#include <fstream>
#include <functional>

#include "bench_support.h"
#include "racetrack/des/simulate.h"
#include "racetrack/race/checker.h"
#include "racetrack/replay/replay.h"
#include "racetrack/traces/export.h"
#include "racetrack/traces/spill_storage.h"

namespace rt = racetrack;
namespace des = racetrack::des;
using racetrack::bench::fail;

namespace {

struct Pass {
  const char* name;
  bool injected;  // on the trace with every hazard shape injected
  bool baseline;  // shown for comparison, not held to the target
  std::function<void(const std::string& path)> run;
};

template <typename T>
void must(const rt::Result<T>& r) {
  if (!r) fail(r.error());
}

std::vector<Pass> passes() {
  return {
      {"decode + validate", false, false, [](const std::string& p) { racetrack::bench::decode_all(p); }},
      {"check", false, false, [](const std::string& p) { must(rt::race::check_file(p, {})); }},
      {"check --inject", true, false, [](const std::string& p) { must(rt::race::check_file(p, {})); }},
      {"export (perfetto)", false, false,
       [](const std::string& p) {
         std::ofstream out("/dev/null");  // what it writes is the file's size, not memory it holds
         must(rt::export_trace(p, out, rt::ExportFormat::kPerfetto, {}));
       }},
      {"sim", false, false, [](const std::string& p) { must(des::simulate_file(p, {})); }},
      {"sim, not spilling (baseline)", false, true,
       [](const std::string& p) {
         racetrack::spill::Settings s = racetrack::spill::settings();
         s.spill_above_bytes = SIZE_MAX;
         racetrack::spill::configure(s);
         must(des::simulate_file(p, {}));
       }},
      {"sim --adversarial --apply-fixes", true, false,
       [](const std::string& p) {
         des::SimOptions o;
         o.adversarial = true;
         o.apply_fixes = true;
         must(des::simulate_file(p, o));
       }},
      {"replay (host, fast)", false, false,
       [](const std::string& p) {
         rt::replay::ReplayOptions o;
         o.traced_timing = false;
         must(rt::replay::replay_file(p, o));
       }},
  };
}

std::string make_trace(uint64_t ops, bool injected) {
  rt::SynthOptions options;
  options.target_ops = ops;
  if (injected) options.inject.fill(1);
  return racetrack::bench::synth_trace(
      std::string(injected ? "memory-injected-" : "memory-clean-") + std::to_string(ops), options);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes = {1000000, 3000000};
  if (racetrack::bench::bench_sizes(argc, argv).size() > 2) sizes.push_back(10000000);
  std::printf("racetrack memory benchmark: peak RSS (MiB) of each pass in a process of its own; ");
  std::printf("target flat, <= 300 MiB at 10^7 ops\n\n%-32s", "pass");
  for (uint64_t n : sizes) std::printf("  %9llu ops", static_cast<unsigned long long>(n));
  std::printf("  %10s  %10s  %12s\n", "last/first", "B/op more", "at 10^7");
  std::vector<std::string> clean, injected;
  std::vector<uint64_t> ops;
  for (uint64_t n : sizes) {
    clean.push_back(make_trace(n, false));
    injected.push_back(make_trace(n, true));
    ops.push_back(racetrack::bench::decode_all(clean.back()));
  }
  bool all_met = true;
  for (const Pass& pass : passes()) {
    std::printf("%-32s", pass.name);
    std::vector<double> peaks;
    for (size_t i = 0; i < sizes.size(); ++i) {
      const std::string& path = pass.injected ? injected[i] : clean[i];
      peaks.push_back(racetrack::bench::child_peak_mib([&] { pass.run(path); }));
      std::printf("  %13.1f", peaks.back());
      std::fflush(stdout);
    }
    const size_t last = peaks.size() - 1;
    const double growth = (peaks[last] - peaks[last - 1]) * (1 << 20) /
                          static_cast<double>(ops[last] - ops[last - 1]);  // bytes per op
    const double at_ten_million =
        sizes[last] >= 10000000 ? peaks[last]
                                : peaks[last] + growth * (1e7 - static_cast<double>(ops[last])) / (1 << 20);
    const bool met = at_ten_million <= 300;
    if (!pass.baseline) all_met &= met;
    std::printf("  %9.2fx  %10.1f  %7.0f MiB%s %s\n", peaks[last] / peaks[0], growth, at_ten_million,
                sizes[last] >= 10000000 ? "" : "*",
                pass.baseline ? "(baseline)"
                : met         ? "met"
                              : "NOT met");
  }
  std::printf("\n* projected from the growth between the two largest traces (--large runs 10^7)\n");
  std::printf("every pass <= 300 MiB at 10^7 ops: %s\n", all_met ? "met" : "NOT met");
  for (const auto& p : clean) std::filesystem::remove(p);
  for (const auto& p : injected) std::filesystem::remove(p);
  return 0;
}
