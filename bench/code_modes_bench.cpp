// racetrack check with machine-code modes on `synth --modes code` traces
// (raw argument words plus the kernels' per-word modes), seeds 1-5 at 10^6
// ops (--ops N to change): shown groups of clean traces (target 0) and, with
// every shape injected, shown groups and the recall of injected hazards at
// the default confidence (target: every one shown, at least likely); then
// the check time with code modes as a ratio of the same seed's known-modes
// trace, and of the raw-words trace, measured in the same run.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <set>

#include "bench_support.h"
#include "racetrack/code/access_modes.h"
#include "racetrack/race/checker.h"
#include "racetrack/race/code_modes.h"

namespace rt = racetrack;
namespace {

// CPU seconds of the best of `runs` calls: the check is one thread, and CPU
// time stays meaningful on a machine shared with builds.
template <typename F>
double best_cpu_seconds(int runs, F&& f) {
  double best = 1e300;
  for (int i = 0; i < runs; ++i) {
    const std::clock_t start = std::clock();
    f();
    best = std::min(best, static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC);
  }
  return best;
}

enum class Modes { kKnown, kRaw, kCode };

struct Trace {
  std::string path;
  rt::SynthResult truth;
};

Trace make_trace(uint64_t seed, uint64_t ops, Modes modes, bool inject) {
  rt::SynthOptions o;
  o.seed = seed;
  o.target_ops = ops;
  o.known_modes = modes == Modes::kKnown;
  o.code_modes = modes == Modes::kCode;
  o.analyzer_version = rt::code::kAnalyzerVersion;
  if (inject) o.inject.fill(1);
  const char* name = modes == Modes::kKnown ? "known" : modes == Modes::kRaw ? "raw" : "code";
  Trace t;
  t.path = (racetrack::bench::bench_dir() / ("code-modes-" + std::string(name) + "-s" + std::to_string(seed) +
                                             (inject ? "-inject" : "") + ".rtrace"))
               .string();
  auto writer = rt::TraceWriter::create(t.path, o.writer);
  if (!writer) racetrack::bench::fail(writer.error());
  auto result = rt::synthesize(o, *writer);
  if (!result) racetrack::bench::fail(result.error());
  if (auto closed = writer->close(); !closed) racetrack::bench::fail(closed.error());
  t.truth = std::move(*result);
  return t;
}

rt::race::CheckResult check(const std::string& path) {
  rt::race::CheckOptions options;
  options.code_modes = std::make_shared<rt::race::CodeModeTable>(rt::race::CodeModesOptions{});
  auto result = rt::race::check_file(path, options);
  if (!result) racetrack::bench::fail(result.error());
  return std::move(*result);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t ops = 1000000;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--ops") == 0) ops = std::stoull(argv[i + 1]);
  std::printf("racetrack check with machine-code modes, synth --modes code, %llu ops, seeds 1-5\n\n",
              static_cast<unsigned long long>(ops));
  std::printf("%-5s %-22s %-38s %s\n", "seed", "clean: shown groups", "inject all: shown groups / injected",
              "recall at >= likely (per shape)");
  uint64_t recalled_total = 0, injected_total = 0, clean_shown_total = 0;
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const rt::race::CheckResult clean = check(make_trace(seed, ops, Modes::kCode, false).path);
    clean_shown_total += clean.shown_groups();
    const Trace traced = make_trace(seed, ops, Modes::kCode, true);
    const rt::SynthResult& truth = traced.truth;
    const rt::race::CheckResult injected = check(traced.path);
    std::set<std::pair<uint64_t, uint64_t>> shown;
    for (const rt::race::Hazard& h : injected.shown) shown.insert({h.first.seq, h.second.seq});
    std::map<std::string, std::pair<int, int>> per_shape;  // found, injected
    uint64_t recalled = 0;
    for (const rt::InjectedHazard& i : truth.injected) {
      const bool found = shown.count({i.first_seq, i.second_seq}) > 0;
      recalled += found;
      auto& [f, n] = per_shape[std::string(rt::shape_name(i.shape))];
      f += found;
      ++n;
    }
    recalled_total += recalled;
    injected_total += truth.injected.size();
    std::string shapes;
    for (const auto& [shape, fn] : per_shape)
      shapes += shape + " " + std::to_string(fn.first) + "/" + std::to_string(fn.second) + "  ";
    char groups[64];
    std::snprintf(groups, sizeof groups, "%llu / %zu",
                  static_cast<unsigned long long>(injected.shown_groups()), truth.injected.size());
    std::printf("%-5llu %-22llu %-38s %llu/%zu  %s\n", static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(clean.shown_groups()), groups,
                static_cast<unsigned long long>(recalled), truth.injected.size(), shapes.c_str());
  }
  std::printf(
      "\nclean shown groups in all: %llu (target 0); injected hazards shown at >= likely: %llu of %llu "
      "(%.0f%%, target 100%%)\n\n",
      static_cast<unsigned long long>(clean_shown_total), static_cast<unsigned long long>(recalled_total),
      static_cast<unsigned long long>(injected_total),
      injected_total ? 100.0 * static_cast<double>(recalled_total) / static_cast<double>(injected_total)
                     : 0.0);

  // Check CPU time, clean seed 1, best of 3: code modes against known modes
  // (the baseline) and raw words.
  const std::string known = make_trace(1, ops, Modes::kKnown, false).path,
                    raw = make_trace(1, ops, Modes::kRaw, false).path,
                    code = make_trace(1, ops, Modes::kCode, false).path;
  const double t_known = best_cpu_seconds(3, [&] { check(known); });
  const double t_raw = best_cpu_seconds(3, [&] { check(raw); });
  const double t_code = best_cpu_seconds(3, [&] { check(code); });
  std::printf(
      "check CPU time, clean seed 1: known %.2f s (1.00x), raw %.2f s (%.2fx), code %.2f s (%.2fx of known, "
      "%.2fx of raw)\n",
      t_known, t_raw, t_raw / t_known, t_code, t_code / t_known, t_code / t_raw);
  return 0;
}
