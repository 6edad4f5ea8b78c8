#include <iostream>
#include <limits>

#include "check_inputs.h"
#include "commands.h"
#include "export_hazards.h"
#include "racetrack/traces/describe.h"
#include "progress.h"
#include "racetrack/traces/export.h"
#include "racetrack/traces/output_file.h"

namespace racetrack::cli {
namespace {

// Exports this big are announced before they are written.
constexpr uint64_t kAnnounceBytes = 16ull << 20;
// Browsers give up on JSON far below Perfetto's ~2 GB proto limit: a 900 MB
// file crashed ui.perfetto.dev, chrome://tracing stops near 256 MB.
constexpr uint64_t kLargeJsonBytes = 500ull << 20;
constexpr uint64_t kLargePerfettoBytes = 2ull << 30;

struct ExportArgs {
  std::string in, out, format;
  bool no_hazards = false;
  std::string min_confidence = "likely";
  bool all_hazards = false;
  size_t max_hazards = 1000;
  uint64_t from = 0, to = std::numeric_limits<uint64_t>::max(),
           max_ops = std::numeric_limits<uint64_t>::max();
};

// Said on stderr before the output is written, so a huge one can be stopped.
void announce(const ExportPlan& plan, ExportFormat format, const std::string& out) {
  if (plan.estimated_bytes < kAnnounceBytes) return;
  const bool json = format == ExportFormat::kChrome;
  std::cerr << "export: " << out << " will be about " << format_bytes(plan.estimated_bytes) << " ("
            << plan.ops << " ops";
  if (plan.ops < plan.trace_ops)
    std::cerr << " of " << plan.trace_ops << ", seq " << plan.first_seq << ".." << plan.last_seq;
  std::cerr << ")\n";
  if (plan.estimated_bytes > (json ? kLargeJsonBytes : kLargePerfettoBytes))
    std::cerr << "warning: "
              << (json ? "browsers often fail to load JSON this large; prefer --format perfetto"
                       : "ui.perfetto.dev loads up to about 2 GB; open it with trace_processor --httpd")
              << ", or export a part with --max-ops N or --from SEQ --to SEQ\n";
}

// The hazards of `path` to show, as check finds them; false after saying why not.
bool find_hazards(const ExportArgs& a, const std::string& path, ProgressLine& progress, ExportOptions& options) {
  if (a.no_hazards) return true;
  race::CheckOptions check;  // check's defaults
  check.progress = progress.callback();
  if (!race::parse_confidence(a.min_confidence, check.min_confidence)) {
    std::cerr << "export: --min-confidence must be definite, likely or possible\n";
    return false;
  }
  auto result = race::check_file(path, check);
  if (!result) {
    std::cerr << result.error().describe() << "\n";
    return false;
  }
  options.hazards = export_hazards(*result, a.all_hazards, a.max_hazards);
  return true;
}

// Several rank traces (a directory or a glob) into one Perfetto trace.
int merge_rank_traces(const ExportArgs& a, const std::vector<std::string>& paths) {
  if (!a.format.empty() ? a.format == "chrome" : export_format_for(a.out) == ExportFormat::kChrome) {
    std::cerr << "export: merging " << paths.size() << " traces writes Perfetto only (a process per rank): "
              << "name the output .pftrace, or --format perfetto\n";
    return kExitBadInput;
  }
  if (a.from || a.max_ops != std::numeric_limits<uint64_t>::max() || a.to != std::numeric_limits<uint64_t>::max()) {
    std::cerr << "export: --from, --to and --max-ops take one trace (seqs are per rank)\n";
    return kExitBadInput;
  }
  ProgressLine progress;
  std::vector<ExportOptions> options(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    options[i].progress = progress.callback();
    if (!find_hazards(a, paths[i], progress, options[i])) return kExitBadInput;
  }
  std::vector<RankAlignment> alignment;
  auto stats = export_ranks(paths, options, a.out, &alignment);
  progress.finish();
  if (!stats) {
    std::cerr << stats.error().describe() << "\n";
    return kExitBadInput;
  }
  std::cout << a.out << ": " << paths.size() << " ranks, " << stats->slices << " slices, " << stats->hazards
            << " hazard(s), " << stats->bytes << " bytes (Perfetto, a process per rank)\n"
            << "clocks aligned to the earliest header time origin:\n";
  for (const RankAlignment& r : alignment)
    std::cout << "  " << (r.rank >= 0 ? "rank " + std::to_string(r.rank) : std::string("no rank")) << " ("
              << r.path << "): +" << r.offset_ns << " ns"
              << (r.clock_differs ? ", another clock domain than the first trace's: approximate" : "") << "\n";
  return kExitOk;
}

int run_export(const ExportArgs& a) {
  auto inputs = expand_trace_inputs({a.in});
  if (!inputs) {
    std::cerr << "export: " << inputs.error().describe() << "\n";
    return kExitBadInput;
  }
  if (inputs->size() > 1) return merge_rank_traces(a, *inputs);
  const std::string in = inputs->front();  // a glob that matched one trace: that trace
  if (auto usable = check_output(a.out, {in}); !usable) {
    std::cerr << usable.error().describe() << "\n";
    return kExitBadInput;
  }
  const ExportFormat format = a.format.empty()       ? export_format_for(a.out)
                              : a.format == "chrome" ? ExportFormat::kChrome
                                                     : ExportFormat::kPerfetto;
  ProgressLine progress;
  ExportOptions options;
  options.progress = progress.callback();
  options.from_seq = a.from;
  options.to_seq = a.to;
  options.max_ops = a.max_ops;
  options.on_plan = [&](const ExportPlan& plan) { announce(plan, format, a.out); };
  if (!find_hazards(a, in, progress, options)) return kExitBadInput;
  auto stats = export_trace(in, a.out, format, options);
  progress.finish();
  if (!stats) {
    std::cerr << stats.error().describe() << "\n";
    return kExitBadInput;
  }
  std::cout << a.out << ": " << stats->slices << " slices, " << stats->flows << " flows, " << stats->hazards
            << " hazard(s)";
  if (stats->hazards_outside) std::cout << " (" << stats->hazards_outside << " more outside the window)";
  std::cout << ", " << stats->nvtx_ranges << " NVTX ranges, " << stats->overlap_tracks << " overlap tracks, "
            << stats->bytes << " bytes (" << (format == ExportFormat::kChrome ? "Chrome JSON" : "Perfetto")
            << ")\n";
  return kExitOk;
}

}  // namespace

void add_export(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "export",
      "Write a trace and its hazards for ui.perfetto.dev (Perfetto protobuf) or chrome://tracing (JSON)");
  auto a = std::make_shared<ExportArgs>();
  cmd->add_option("IN", a->in,
                  "input trace (.rtrace, .pbtxt or .json); a directory (its *.rtrace) or a quoted glob merges "
                  "the ranks of a run into one Perfetto trace, a process per rank")
      ->required();
  cmd->add_option("OUT", a->out, "output file")->required();
  cmd->add_option("--format", a->format, "perfetto or chrome (default: chrome for .json, else perfetto)")
      ->check(CLI::IsMember({"perfetto", "chrome"}));
  cmd->add_flag("--no-hazards", a->no_hazards, "skip racetrack check: export the ops only");
  cmd->add_option("--min-confidence", a->min_confidence,
                  "show hazards at least this certain: definite, likely, possible (as check)")
      ->capture_default_str();
  cmd->add_flag("--all-hazards", a->all_hazards, "a hazard slice per shown occurrence, not only per group");
  cmd->add_option("--max-hazards", a->max_hazards, "at most this many hazard slices")->capture_default_str();
  cmd->add_option("--from", a->from, "export ops from this seq on");
  cmd->add_option("--to", a->to, "export ops up to this seq");
  cmd->add_option("--max-ops", a->max_ops, "export at most this many ops (from --from on)");
  cmd->footer(
      "Large outputs are announced on stderr before they are written. Exit status: 0 written, 2 bad input.");
  cmd->callback([a, &exit_code] { exit_code = run_export(*a); });
}

}  // namespace racetrack::cli
