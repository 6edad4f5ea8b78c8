#include <iostream>

#include "commands.h"
#include "progress.h"
#include "racetrack/traces/export.h"
#include "racetrack/traces/output_file.h"

namespace racetrack::cli {
namespace {

// Browsers give up on JSON far below Perfetto's ~2 GB proto limit: a 900 MB
// file crashed ui.perfetto.dev, chrome://tracing stops near 256 MB.
constexpr uint64_t kLargeJsonBytes = 500ull << 20;

struct ExportOptions {
  std::string in, out, format;
};

int run_export(const ExportOptions& o) {
  if (auto usable = check_output(o.out, {o.in}); !usable) {
    std::cerr << usable.error().describe() << "\n";
    return kExitBadInput;
  }
  const ExportFormat format = o.format.empty()       ? export_format_for(o.out)
                              : o.format == "chrome" ? ExportFormat::kChrome
                                                     : ExportFormat::kPerfetto;
  ProgressLine progress;
  auto stats = format == ExportFormat::kChrome ? export_chrome(o.in, o.out, progress.callback())
                                               : export_perfetto(o.in, o.out, progress.callback());
  progress.finish();
  if (!stats) {
    std::cerr << stats.error().describe() << "\n";
    return kExitBadInput;
  }
  std::cout << o.out << ": " << stats->slices << " slices, " << stats->flows << " flows, " << stats->bytes
            << " bytes (" << (format == ExportFormat::kChrome ? "Chrome JSON" : "Perfetto") << ")\n";
  if (format == ExportFormat::kChrome && stats->bytes > kLargeJsonBytes)
    std::cerr << "warning: " << o.out << " is " << (stats->bytes >> 20)
              << " MiB of JSON; browsers often fail to load JSON this large. "
                 "Export with --format perfetto (and open big files with trace_processor --httpd).\n";
  return kExitOk;
}

}  // namespace

void add_export(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "export", "Write a trace for ui.perfetto.dev (Perfetto protobuf) or chrome://tracing (JSON)");
  auto o = std::make_shared<ExportOptions>();
  cmd->add_option("IN", o->in, "input trace (.rtrace, .pbtxt or .json)")->required();
  cmd->add_option("OUT", o->out, "output file")->required();
  cmd->add_option("--format", o->format, "perfetto or chrome (default: chrome for .json, else perfetto)")
      ->check(CLI::IsMember({"perfetto", "chrome"}));
  cmd->callback([o, &exit_code] { exit_code = run_export(*o); });
}

}  // namespace racetrack::cli
