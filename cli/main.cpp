// racetrack: finds data races between copy and compute streams in GPU traces.
#include <algorithm>
#include <iostream>

#include "closest_match.h"
#include "commands.h"
#include "memory_limit.h"

namespace {

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto match = racetrack::cli::closest_match(word, candidates);
  return match ? "; did you mean '" + *match + "'?" : "";
}

// CLI11 takes a mistyped subcommand for a stray argument ("A subcommand is
// required"); name it and the nearest real one instead.
bool unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return false;
  const std::string word = argv[1];
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  if (std::find(names.begin(), names.end(), word) != names.end()) return false;
  std::cerr << "racetrack: unknown subcommand '" << word << "'" << did_you_mean(word, names)
            << "\nsubcommands:";
  for (const std::string& n : names) std::cerr << " " << n;
  std::cerr << "\nRun with --help for more information.\n";
  return true;
}

// An option a subcommand does not have, with the nearest one it has.
void explain_unknown_option(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const std::string& arg : sub->remaining()) {
      if (arg.rfind("--", 0) != 0) continue;
      const std::string word = arg.substr(0, arg.find('='));
      std::vector<std::string> names;
      for (const CLI::Option* o : sub->get_options())
        if (!o->get_group().empty())  // hidden ones (old spellings) are not suggested
          for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
      std::cerr << "racetrack " << sub->get_name() << ": unknown option '" << word << "'"
                << did_you_mean(word, names) << "\n";
      return;
    }
  }
}

}  // namespace

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
  racetrack::cli::add_diff(app, exit_code);
  // Every command but capture, whose program would inherit the limit.
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->get_name() != "capture") racetrack::cli::add_memory_limit(*sub);
  if (unknown_subcommand(app, argc, argv)) return racetrack::cli::kExitBadInput;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) explain_unknown_option(app);
    const int rc = app.exit(e);
    // Usage errors are bad input; --help and --version are not.
    return rc == 0 ? 0 : racetrack::cli::kExitBadInput;
  }
  return exit_code;
}
