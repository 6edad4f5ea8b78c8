#include <iostream>

#include "assume_option.h"
#include "code_modes_flags.h"
#include "commands.h"
#include "numbers.h"
#include "progress.h"
#include "racetrack/replay/replay.h"
#include "racetrack/traces/output_file.h"

namespace racetrack::cli {
namespace {

struct ReplayArgs {
  std::string path, format = "text", timing = "traced";
  replay::ReplayOptions options;
  CodeModeFlags code_modes;
};

// Flags that only act together with another, said so rather than ignored.
void warn_flag_pairs(const ReplayArgs& a, const CLI::App& cmd) {
  if (a.options.stress) return;
  for (const char* flag : {"--seed", "--stress-ns", "--stress-budget-ns"})
    if (cmd.count(flag))
      std::cerr << "replay: warning: " << flag
                << " shapes the --stress delays; it does nothing without --stress\n";
}

int run_replay(ReplayArgs& a, const CLI::App& cmd) {
  warn_flag_pairs(a, cmd);
  if (!a.options.output.empty())
    if (auto usable = check_output(a.options.output, {a.path}); !usable) {
      std::cerr << usable.error().describe() << "\n";
      return kExitBadInput;
    }
  a.options.traced_timing = a.timing == "traced";
  a.options.check.code_modes = a.code_modes.table();
  ProgressLine progress;
  a.options.progress = progress.callback();
  auto report = replay::replay_file(a.path, a.options);
  progress.finish();
  if (!report) {
    std::cerr << report.error().describe() << "\n";
    return kExitBadInput;
  }
  std::cout << (a.format == "json" ? replay::format_replay_json(*report)
                                   : replay::format_replay_text(*report));
  if (!a.options.output.empty()) std::cerr << "wrote the replayed timeline to " << a.options.output << "\n";
  const bool manifested = std::any_of(report->hazards.begin(), report->hazards.end(),
                                      [](const replay::ReplayHazard& h) { return h.manifested_runs > 0; });
  return manifested || report->corrupted_reads ? kExitFindings : kExitOk;
}

}  // namespace

void add_replay(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "replay", "Re-execute a trace with real concurrency and catch hazards corrupting data");
  auto a = std::make_shared<ReplayArgs>();
  auto& o = a->options;
  cmd->add_option("FILE", a->path, "trace")->required();
  add_assume_option(cmd, o.check.assumptions);
  cmd->add_option("--backend", o.backend, "host (CPU threads) or cuda (needs a GPU)")
      ->capture_default_str()
      ->check(CLI::IsMember({"host", "cuda"}));
  cmd->add_flag(
      "--stress", o.stress,
      "hold the first op of each hazard back (seeded, sized from the pair's gap) so the second overtakes");
  add_number(cmd, "--repeat", o.repeat, "runs")->capture_default_str()->check(CLI::Range(1u, 100000u));
  add_number(cmd, "--seed", o.seed, "seed of the --stress delays")->capture_default_str();
  add_number(cmd, "--stress-ns", o.stress_ns,
             "fixed --stress delay (ns): each hold in [NS/2, NS] instead of sized from its pair's gap")
      ->check(CLI::Range(int64_t{1000}, int64_t{10'000'000'000}));
  add_number(cmd, "--stress-budget-ns", o.stress_budget_ns,
             "the --stress delays of one run add up to at most this; more take turns across --repeat runs")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1'000'000}, int64_t{3'600'000'000'000}));
  cmd->add_option("--timing", a->timing, "traced: ops take their traced time; fast: as fast as possible")
      ->capture_default_str()
      ->check(CLI::IsMember({"traced", "fast"}));
  add_number(cmd, "--granule", o.granule, "bytes per version stamp")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{4}, uint64_t{1} << 30));
  add_number(cmd, "--memory-limit", o.memory_limit,
             "arena bytes (0: no limit); larger footprints are scaled down")
      ->capture_default_str();
  cmd->add_option("-o,--output", o.output, "write the replayed timeline (measured times) as a trace");
  add_code_mode_flags(cmd, a->code_modes);
  cmd->add_option("--format", a->format, "text or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
  cmd->footer(
      "Exit status: 0 no corruption seen, 1 a hazard manifested, 2 bad input or no GPU for --backend cuda.");
  cmd->callback([a, cmd, &exit_code] { exit_code = run_replay(*a, *cmd); });
}

}  // namespace racetrack::cli
