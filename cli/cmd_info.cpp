#include <iostream>

#include "commands.h"
#include "trace_stats.h"

namespace racetrack::cli {

void add_info(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("info", "Summarise a trace: header, op counts, streams, copies, regions");
  auto path = std::make_shared<std::string>();
  cmd->add_option("FILE", *path, "trace (.rtrace, .pbtxt or .json)")->required();
  cmd->callback([path, &exit_code] {
    TraceStats stats;
    auto status = gather_stats(*path, stats);
    // What was read before an error is shown; a file that never opened as a trace has nothing to show.
    if (status || stats.chunks) std::cout << format_stats(stats);
    if (!status) {
      std::cerr << status.error().describe() << "\n";
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace racetrack::cli
