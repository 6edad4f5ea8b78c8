// `racetrack diff BASELINE RUN`: the first operator whose values leave the
// baseline run's, from two values records (docs/diff.md).
#include <iostream>

#include "commands.h"
#include "racetrack/diverge/divergence_report.h"
#include "racetrack/diverge/values_trace.h"

namespace racetrack::cli {
namespace {

struct DiffArgs {
  std::string baseline, run;
  std::string format = "text";
  diverge::DiffOptions options;
};

int run_diff(const DiffArgs& a) {
  auto baseline = diverge::read_values_any(a.baseline);
  if (!baseline) {
    std::cerr << "diff: " << baseline.error().describe() << "\n";
    return kExitBadInput;
  }
  auto run = diverge::read_values_any(a.run);
  if (!run) {
    std::cerr << "diff: " << run.error().describe() << "\n";
    return kExitBadInput;
  }
  const diverge::DiffResult result = diverge::first_divergence(*baseline, *run, a.options);
  if (a.format == "json")
    std::cout << diverge::to_json(result, a.options).dump(2) << "\n";
  else
    std::cout << diverge::format_text(result, a.options);
  return result.diverged() ? kExitFindings : kExitOk;
}

}  // namespace

void add_diff(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "diff", "Find the first operator whose values differ between a baseline run and another run");
  auto a = std::make_shared<DiffArgs>();
  cmd->add_option("BASELINE", a->baseline,
                  "values of the baseline run: a values record (racetrack_torch.record_values) or a trace carrying one")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("RUN", a->run, "values of the run that drifts (offloading, recompute, ...), in either form")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--format", a->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--rtol", a->options.tolerance.relative,
                  "relative tolerance on sums and absolute maxima (default 1e-5)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--atol", a->options.tolerance.absolute, "absolute tolerance (default 1e-8)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--ignore-within-tolerance", a->options.ignore_within_tolerance,
                "do not count outputs whose bytes differ but whose statistics agree within the tolerance "
                "(GPU reductions that are not bitwise deterministic)");
  cmd->footer(
      "Operators are matched by phase, module, operator and occurrence; a recomputed operator is compared "
      "with its forward original, and copies and allocations are skipped.\n"
      "Exit status: 0 no divergence, 1 a divergence (or baseline operators the run never ran), 2 bad input.");
  cmd->callback([a, &exit_code] { exit_code = run_diff(*a); });
}

}  // namespace racetrack::cli
