#include <iostream>

#include "assume_option.h"
#include "code_modes_flags.h"
#include "commands.h"
#include "numbers.h"
#include "progress.h"
#include "racetrack/des/simulate.h"
#include "racetrack/traces/output_file.h"

namespace racetrack::cli {
namespace {

struct SimArgs {
  std::string path, format = "text", min_confidence = "likely";
  std::vector<std::string> slow, add_wait;
  des::SimOptions options;
  double h2d_gbps = 25, d2h_gbps = 25;
  bool modelled_times = false;
  std::string old_kernel_us;
  CodeModeFlags code_modes;
};

// "NAME=FACTOR"
bool parse_slow(const std::string& spec, std::pair<std::string, double>& out) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  out.first = spec.substr(0, eq);
  return parse_number(std::string_view(spec).substr(eq + 1), out.second).empty() && out.second > 0;
}

// "AFTER:BEFORE": op BEFORE waits for op AFTER (an event recorded after it).
bool parse_wait(const std::string& spec, race::FixEdit& out) {
  const auto colon = spec.find(':');
  if (colon == std::string::npos) return false;
  const std::string_view text(spec);
  return parse_number(text.substr(0, colon), out.after_seq).empty() &&
         parse_number(text.substr(colon + 1), out.before_seq).empty() && out.after_seq < out.before_seq;
}

// Flags that only act together with another, said so rather than ignored.
int check_flag_pairs(const SimArgs& a, const CLI::App& cmd) {
  const des::SimOptions& o = a.options;
  const bool what_if = o.apply_fixes || !a.add_wait.empty();
  if (o.jitter_schedules && !what_if) {
    std::cerr << "sim: --jitter-schedules tries the fixed trace under jitter: it needs --apply-fixes or "
                 "--add-wait\n";
    return kExitBadInput;
  }
  if (cmd.count("--seed") && o.schedule.jitter_sigma == 0 && !o.jitter_schedules)
    std::cerr << "sim: warning: --seed seeds the jitter; it does nothing without --jitter or "
                 "--jitter-schedules\n";
  return kExitOk;
}

int run_sim(SimArgs& a, const CLI::App& cmd) {
  if (cmd.count("--kernel-us")) {
    std::cerr << "sim: --kernel-us took nanoseconds despite its name; it is now --kernel-ns\n";
    return kExitBadInput;
  }
  if (const int rc = check_flag_pairs(a, cmd); rc != kExitOk) return rc;
  if (!a.options.output.empty())
    if (auto usable = check_output(a.options.output, {a.path}); !usable) {
      std::cerr << usable.error().describe() << "\n";
      return kExitBadInput;
    }
  for (const auto& spec : a.slow) {
    std::pair<std::string, double> slow;
    if (!parse_slow(spec, slow)) {
      std::cerr << "sim: bad --slow '" << spec
                << "': expected STREAM=FACTOR (name, role or id; factor > 0)\n";
      return kExitBadInput;
    }
    a.options.slow.push_back(slow);
  }
  for (const auto& spec : a.add_wait) {
    race::FixEdit edit;
    if (!parse_wait(spec, edit)) {
      std::cerr << "sim: bad --add-wait '" << spec << "': expected FIRST:SECOND seqs, FIRST < SECOND\n";
      return kExitBadInput;
    }
    a.options.add_waits.push_back(edit);
  }
  if (!race::parse_confidence(a.min_confidence, a.options.check.min_confidence)) {
    std::cerr << "sim: --min-confidence must be definite, likely or possible\n";
    return kExitBadInput;
  }
  a.options.costs.h2d_bytes_per_ns = a.h2d_gbps;
  a.options.costs.d2h_bytes_per_ns = a.d2h_gbps;
  a.options.costs.use_traced_times = !a.modelled_times;
  a.options.check.code_modes = a.code_modes.table();
  ProgressLine progress;
  a.options.progress = progress.callback();
  auto report = des::simulate_file(a.path, a.options);
  progress.finish();
  if (!report) {
    std::cerr << report.error().describe() << "\n";
    return kExitBadInput;
  }
  std::cout << (a.format == "json" ? des::format_sim_json(*report) : des::format_sim_text(*report));
  if (!a.options.output.empty()) std::cerr << "wrote the simulated timeline to " << a.options.output << "\n";
  const bool manifested = std::any_of(report->hazards.begin(), report->hazards.end(),
                                      [](const des::HazardVerdict& v) { return v.manifested; });
  return manifested || report->corruptions ? kExitFindings : kExitOk;
}

}  // namespace

void add_sim(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "sim", "Run a trace on a model GPU: show hazards corrupting data and what fixes cost");
  auto a = std::make_shared<SimArgs>();
  auto& o = a->options;
  cmd->add_option("FILE", a->path, "trace")->required();
  add_assume_option(cmd, o.check.assumptions);
  cmd->add_option("--slow", a->slow,
                  "STREAM=FACTOR: slow a stream (name, role or id) by FACTOR (repeatable)");
  add_number(cmd, "--jitter", o.schedule.jitter_sigma,
             "SIGMA: multiply device durations by exp(SIGMA * N(0,1))")
      ->check(CLI::Range(0.0, 4.0));
  add_number(cmd, "--seed", o.schedule.seed, "seed of the jitter (with --jitter or --jitter-schedules)")
      ->capture_default_str();
  cmd->add_flag("--adversarial", o.adversarial,
                "demonstrate each hazard: hold its first op back until the rest has run (consistent with "
                "happens-before)");
  cmd->add_flag("--apply-fixes", o.apply_fixes,
                "apply the checker's suggested fixes and report what they cost");
  cmd->add_option("--add-wait", a->add_wait, "FIRST:SECOND: make op SECOND wait for op FIRST (repeatable)");
  add_number(cmd, "--jitter-schedules", o.jitter_schedules,
             "what-if (with --apply-fixes or --add-wait): also try the fixed trace under this many seeded "
             "jitter schedules")
      ->capture_default_str();
  add_number(cmd, "--kernel-slots", o.schedule.kernel_slots, "kernels that may run at once")
      ->capture_default_str()
      ->check(CLI::Range(1u, 4096u));
  add_number(cmd, "--h2d-gbps", a->h2d_gbps, "H2D bandwidth for copies without traced times (GB/s)")
      ->capture_default_str()
      ->check(above_zero());
  add_number(cmd, "--d2h-gbps", a->d2h_gbps, "D2H bandwidth for copies without traced times (GB/s)")
      ->capture_default_str()
      ->check(above_zero());
  add_number(cmd, "--kernel-ns", o.costs.kernel_ns, "duration of kernels without traced times (ns)")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{0}, int64_t{1'000'000'000'000}));
  // The old spelling, which took nanoseconds: refused with a pointer to the new one.
  cmd->add_option("--kernel-us", a->old_kernel_us)->group("");
  cmd->add_flag("--modelled-times", a->modelled_times,
                "ignore traced durations; use the cost model for everything");
  cmd->add_option("--min-confidence", a->min_confidence,
                  "hazards to demonstrate: definite, likely or possible")
      ->capture_default_str();
  cmd->add_option("-o,--output", o.output, "write the simulated timeline as a trace");
  add_code_mode_flags(cmd, a->code_modes);
  cmd->add_option("--format", a->format, "text or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
  cmd->footer("Exit status: 0 no corruption shown, 1 a hazard manifested, 2 bad input.");
  cmd->callback([a, cmd, &exit_code] { exit_code = run_sim(*a, *cmd); });
}

}  // namespace racetrack::cli
