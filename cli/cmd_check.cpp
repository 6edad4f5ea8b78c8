#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "assume_option.h"
#include "check_inputs.h"
#include "check_ranks.h"
#include "code_modes_flags.h"
#include "commands.h"
#include "numbers.h"
#include "progress.h"
#include "racetrack/race/report.h"
#include "racetrack/traces/output_file.h"

namespace racetrack::cli {
namespace {

struct CheckArgs {
  std::vector<std::string> inputs;  // traces, directories or patterns
  std::string path;                 // the one trace, when there is one
  unsigned jobs = 0;
  std::string dask;
  std::vector<std::string> worker_args;
  std::string format = "text";
  std::string min_confidence = "likely";
  size_t max_groups = 20;
  size_t max_hazards = 10000;
  std::string suppress, emit_fixed, kernel_modes;
  bool all = false;
  bool no_fix = false;
  CodeModeFlags code_modes;
  bool whole_segments = false;
  hb::Assumptions assumptions;
};

Result<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error{"cannot open", {}, path};
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Suppression {
  size_t line = 0;  // 1-based, in the file
  std::string signature;
};

// Signatures, one per line; '#' starts a comment line.
std::vector<Suppression> parse_suppressions(const std::string& text) {
  std::vector<Suppression> out;
  std::istringstream in(text);
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    if (!line.empty() && line[0] != '#') out.push_back({number, line});
  }
  return out;
}

// --all on a trace with many hazards writes a large document: say so
// before writing, and say when --max-hazards cut the list.
void warn_about_size(const race::CheckResult& result, const race::ReportOptions& report) {
  constexpr uint64_t kLarge = 10000;
  constexpr uint64_t kBytesPerHazard = 1700;  // one hazard object, indented (measured)
  const uint64_t total = race::hazards_to_list(result);
  const uint64_t listed = std::min<uint64_t>(result.shown.size(), report.max_hazards);
  if (listed > kLarge)
    std::cerr << "check: listing " << listed << " hazards, about " << format_bytes(listed * kBytesPerHazard)
              << " of JSON\n";
  if (listed < total)
    std::cerr << "check: --all lists " << listed << " of " << total
              << " hazards (\"hazards_listed\" says so; "
              << (listed < result.shown.size() ? "--max-hazards N raises the bound"
                                               : "the check keeps no more hazards than that")
              << ")\n";
}

// Suppressions that name no hazard group of this trace are stale (the bug
// was fixed, or the signature was mistyped): say which, so they get removed.
void report_unused(const std::string& path, const std::vector<Suppression>& suppressions,
                   const race::CheckResult& result) {
  std::set<std::string> seen;
  for (const race::HazardGroup& g : result.groups) seen.insert(g.signature);
  for (const Suppression& s : suppressions)
    if (!seen.count(s.signature))
      std::cerr << path << ":" << s.line << ": suppression matches no hazard in this trace: " << s.signature
                << "\n";
}

int run_check(CheckArgs& a) {
  auto paths = expand_trace_inputs(a.inputs);
  if (!paths) {
    std::cerr << "check: " << paths.error().describe() << "\n";
    return kExitBadInput;
  }
  const bool many = paths->size() > 1;
  if (many && (!a.emit_fixed.empty() || a.all)) {
    std::cerr << "check: " << (a.all ? "--all" : "--emit-fixed") << " takes one trace, not " << paths->size()
              << "\n";
    return kExitBadInput;
  }
  if (!many && (a.jobs || !a.dask.empty()))
    std::cerr << "check: warning: --jobs and --dask spread several traces; there is one\n";
  a.path = paths->front();
  if (!a.emit_fixed.empty())
    if (auto usable = check_output(a.emit_fixed, {a.path, a.suppress, a.kernel_modes}); !usable) {
      std::cerr << usable.error().describe() << "\n";
      return kExitBadInput;
    }
  if (a.all && a.format != "json")
    std::cerr << "check: warning: --all lists hazards in the JSON report only; it does nothing without "
                 "--format json\n";
  race::CheckOptions options;
  options.assumptions = a.assumptions;
  if (!race::parse_confidence(a.min_confidence, options.min_confidence)) {
    std::cerr << "check: --min-confidence must be definite, likely or possible\n";
    return kExitBadInput;
  }
  if (!a.kernel_modes.empty()) {
    auto text = read_text(a.kernel_modes);
    if (!text) {
      std::cerr << text.error().describe() << "\n";
      return kExitBadInput;
    }
    auto rules = race::parse_kernel_modes(*text);
    if (!rules) {
      std::cerr << a.kernel_modes << ": " << rules.error().message << "\n";
      return kExitBadInput;
    }
    options.kernel_modes = std::move(*rules);
  }
  std::vector<Suppression> suppressions;
  if (!a.suppress.empty()) {
    auto text = read_text(a.suppress);
    if (!text) {
      std::cerr << text.error().describe() << "\n";
      return kExitBadInput;
    }
    suppressions = parse_suppressions(*text);
    for (const Suppression& s : suppressions) options.suppressed.insert(s.signature);
  }
  options.explain_and_fix = !a.no_fix;
  options.code_modes = a.code_modes.table();
  options.infer_blocks = !a.whole_segments;
  if (many) {
    RanksRun run;
    run.paths = std::move(*paths);
    run.format = a.format;
    run.max_groups = a.max_groups;
    run.dask = a.dask;
    run.worker_args = a.worker_args;
    run.many.check = options;
    run.many.report.min_confidence = options.min_confidence;
    run.many.jobs = a.jobs;
    return run_check_ranks(run);
  }
  ProgressLine progress;
  options.progress = progress.callback();
  auto result = race::check_file(a.path, options);
  progress.finish();
  if (!result) {
    std::cerr << result.error().describe() << "\n";
    return kExitBadInput;
  }
  report_unused(a.suppress, suppressions, *result);
  race::ReportOptions report;
  report.trace_path = a.path;
  report.max_groups = a.max_groups;
  report.min_confidence = options.min_confidence;
  report.list_all = a.all;
  report.max_hazards = a.max_hazards;
  if (a.all && a.format == "json") warn_about_size(*result, report);
  if (a.format == "json")
    race::write_json(std::cout, *result, report);
  else
    std::cout << race::format_text(*result, report);
  if (!a.emit_fixed.empty()) {
    if (auto s = race::write_fixed_trace(a.path, a.emit_fixed, race::fix_edits(*result)); !s) {
      std::cerr << s.error().describe() << "\n";
      return kExitBadInput;
    }
    std::cerr << "wrote " << a.emit_fixed << " with the suggested fixes applied"
              << (a.no_fix ? " (not verified: --no-fix skips the re-check)" : "") << "\n";
  }
  return result->shown_groups() ? kExitFindings : kExitOk;
}

}  // namespace

void add_check(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "check", "Find unsynchronised accesses between streams; explain each and suggest a verified fix");
  auto a = std::make_shared<CheckArgs>();
  cmd->add_option("FILE", a->inputs,
                  "trace (.rtrace, .pbtxt or .json); several traces, a directory (its *.rtrace) or a quoted "
                  "glob check every rank of a run at once, in one report")
      ->required();
  cmd->add_option("--format", a->format, "text or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--min-confidence", a->min_confidence,
                  "show hazards at least this certain: definite, likely, possible")
      ->capture_default_str();
  add_number(cmd, "--max", a->max_groups, "show at most this many hazard groups in full")
      ->capture_default_str();
  cmd->add_option(
      "--suppress", a->suppress,
      "file of hazard signatures to suppress, one per line (lines that match no hazard are reported)");
  cmd->add_option("--emit-fixed", a->emit_fixed, "write the trace with every suggested fix applied");
  cmd->add_option("--kernel-modes", a->kernel_modes,
                  "file of rules 'REGEX reads=I,J writes=K' giving kernels' argument modes (after the "
                  "modes the kernels' machine code gives)");
  add_code_mode_flags(cmd, a->code_modes);
  cmd->add_flag("--all", a->all, "JSON: list every shown hazard, not only each group's first");
  cmd->add_option("--max-hazards", a->max_hazards, "with --all: list at most this many hazards")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, std::numeric_limits<size_t>::max()));
  cmd->add_flag("--no-fix", a->no_fix, "skip explaining and verifying fixes (one pass only)");
  cmd->add_flag("--whole-segments", a->whole_segments,
                "raw argument words stand for their whole driver allocation, not the block inferred from "
                "the trace's pointers");
  add_assume_option(cmd, a->assumptions);
  add_number(cmd, "--jobs", a->jobs,
             "several traces: check this many at once (default: as many as the cores and the memory one check "
             "was measured to need allow)");
  cmd->add_option("--dask", a->dask,
                  "several traces: check them on this Dask scheduler (tcp://HOST:PORT, or local:N for N local "
                  "worker processes); every worker runs this racetrack and reads the traces at the same paths");
  cmd->footer(
      "Exit status: 0 no hazard shown, 1 hazards found, 2 bad input (with several traces: none could be "
      "read).");
  cmd->callback([a, cmd, &exit_code] {
    // What a Dask worker's racetrack check needs to check as this one does.
    for (const char* name : {"--min-confidence", "--suppress", "--kernel-modes", "--assume", "--modes-cache"})
      if (const CLI::Option* o = cmd->get_option_no_throw(name))
        for (const std::string& value : o->results()) {
          const bool file = std::string_view(name) == "--suppress" || std::string_view(name) == "--kernel-modes";
          a->worker_args.insert(a->worker_args.end(),
                                {name, file ? std::filesystem::absolute(value).string() : value});
        }
    for (const char* name : {"--no-fix", "--whole-segments", "--no-code-modes"})
      if (const CLI::Option* o = cmd->get_option_no_throw(name); o && o->count()) a->worker_args.push_back(name);
    exit_code = run_check(*a);
  });
}

}  // namespace racetrack::cli
