// Each `racetrack` subcommand registers itself on the app; the callback it
// installs sets the process exit code through `exit_code`.
#pragma once

#include <CLI/CLI.hpp>

namespace racetrack::cli {

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;  // e.g. hazards found
inline constexpr int kExitBadInput = 2;

void add_info(CLI::App& app, int& exit_code);
void add_validate(CLI::App& app, int& exit_code);
void add_dump(CLI::App& app, int& exit_code);
void add_convert(CLI::App& app, int& exit_code);
void add_export(CLI::App& app, int& exit_code);
void add_synth(CLI::App& app, int& exit_code);
void add_check(CLI::App& app, int& exit_code);
void add_why(CLI::App& app, int& exit_code);
void add_view(CLI::App& app, int& exit_code);
void add_sim(CLI::App& app, int& exit_code);
void add_replay(CLI::App& app, int& exit_code);
void add_capture(CLI::App& app, int& exit_code);
void add_modes(CLI::App& app, int& exit_code);
void add_diff(CLI::App& app, int& exit_code);

}  // namespace racetrack::cli
