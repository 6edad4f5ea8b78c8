#include <iostream>

#include "assume_option.h"
#include "code_modes_flags.h"
#include "commands.h"
#include "numbers.h"
#include "racetrack/hb/hb_graph.h"
#include "racetrack/race/pdl.h"

namespace racetrack::cli {
namespace {

struct WhyArgs {
  std::string path;
  uint64_t first = 0, second = 0;
  CodeModeFlags code_modes;  // whether PDL secondaries wait (rule 1a), as check reads it
  hb::Assumptions assumptions;
};

int run_why(const WhyArgs& a) {
  if (a.first >= a.second) {
    std::cerr << "why: give the earlier op first (" << a.first << " >= " << a.second << ")\n";
    return kExitBadInput;
  }
  race::PdlWaitReader pdl(a.code_modes.table());
  auto graph = hb::HbGraph::build_from_file(a.path, a.first, a.second, a.assumptions, &pdl);
  if (!graph) {
    std::cerr << graph.error().describe() << "\n";
    return kExitBadInput;
  }
  for (uint64_t seq : {a.first, a.second})
    if (!graph->contains(seq)) {
      std::cerr << a.path << ": no op with seq " << seq << "\n";
      return kExitBadInput;
    }
  const auto chain = graph->chain(a.first, a.second);
  if (chain.empty()) {
    std::cout << "#" << a.first << " does not happen-before #" << a.second
              << ": no chain of stream order, events or host synchronisation connects them\n"
              << "(" << graph->vertex_count() << " ops in between were searched)\n";
    return kExitFindings;
  }
  std::cout << "#" << a.first << " happens-before #" << a.second << ":\n";
  for (const auto& e : chain)
    std::cout << "  #" << e.from_seq << " -> #" << e.to_seq << "  (" << hb::edge_kind_name(e.kind) << ")\n";
  return kExitOk;
}

}  // namespace

void add_why(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("why", "Show the chain that orders two ops, or say that none does");
  auto a = std::make_shared<WhyArgs>();
  cmd->add_option("FILE", a->path, "trace")->required();
  add_number(cmd, "FIRST", a->first, "seq of the earlier op")->required();
  add_number(cmd, "SECOND", a->second, "seq of the later op")->required();
  add_code_mode_flags(cmd, a->code_modes);
  add_assume_option(cmd, a->assumptions);
  cmd->footer("Exit status: 0 ordered, 1 not ordered, 2 bad input.");
  cmd->callback([a, &exit_code] { exit_code = run_why(*a); });
}

}  // namespace racetrack::cli
