// racetrack: finds data races between copy and compute streams in GPU traces.
#include <iostream>

#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"racetrack: find, explain and fix stream races in GPU training traces"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "racetrack 0.1.0");
  int exit_code = racetrack::cli::kExitOk;
  racetrack::cli::add_info(app, exit_code);
  racetrack::cli::add_validate(app, exit_code);
  racetrack::cli::add_dump(app, exit_code);
  racetrack::cli::add_convert(app, exit_code);
  racetrack::cli::add_export(app, exit_code);
  racetrack::cli::add_synth(app, exit_code);
  racetrack::cli::add_check(app, exit_code);
  racetrack::cli::add_why(app, exit_code);
  racetrack::cli::add_view(app, exit_code);
  racetrack::cli::add_sim(app, exit_code);
  racetrack::cli::add_replay(app, exit_code);
  racetrack::cli::add_capture(app, exit_code);
  racetrack::cli::add_modes(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    // Usage errors are bad input; --help and --version are not.
    return rc == 0 ? 0 : racetrack::cli::kExitBadInput;
  }
  return exit_code;
}
