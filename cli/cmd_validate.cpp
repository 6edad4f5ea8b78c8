#include <iostream>

#include "commands.h"
#include "numbers.h"
#include "racetrack/traces/validate.h"

namespace racetrack::cli {

void add_validate(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("validate", "Check a trace against the format's rules; exit 0 when valid");
  auto path = std::make_shared<std::string>();
  auto max_errors = std::make_shared<size_t>(50);
  cmd->add_option("FILE", *path, "trace (.rtrace, .pbtxt or .json)")->required();
  add_number(cmd, "--max-errors", *max_errors, "stop listing after this many errors")->capture_default_str();
  cmd->callback([path, max_errors, &exit_code] {
    const ValidationReport report = validate_file(*path, *max_errors);
    for (const Error& e : report.errors) std::cerr << e.describe() << "\n";
    if (report.error_count > report.errors.size())
      std::cerr << "... and " << report.error_count - report.errors.size() << " more errors\n";
    if (report.error_count == 0) {
      std::cout << *path << ": valid, " << report.ops << " ops\n";
    } else {
      std::cerr << *path << ": invalid, " << report.error_count << " error(s)\n";
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace racetrack::cli
