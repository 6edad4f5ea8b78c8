#include <iostream>

#include "commands.h"
#include "trace_stats.h"

namespace racetrack::cli {

void add_info(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("info", "Summarise a trace: header, op counts, streams, copies, regions");
  auto path = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("text");
  cmd->add_option("FILE", *path, "trace (.rtrace, .pbtxt or .json)")->required();
  cmd->add_option("--format", *format, "text or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
  cmd->callback([path, format, &exit_code] {
    TraceStats stats;
    auto status = gather_stats(*path, stats);
    // What was read before an error is still printed (JSON says it is
    // incomplete); a file that never opened as a trace has nothing to show.
    if (*format == "json")
      std::cout << format_stats_json(stats, *path, status);
    else if (status || stats.chunks)
      std::cout << format_stats(stats);
    if (!status) {
      std::cerr << status.error().describe() << "\n";
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace racetrack::cli
