#include "assume_option.h"

#include <string>
#include <vector>

namespace racetrack::cli {

void add_assume_option(CLI::App* cmd, hb::Assumptions& target) {
  std::string help = "how to read a case the CUDA documentation says 'may synchronize' (repeatable):";
  for (const hb::AssumptionInfo& a : hb::assumption_list())
    help += "\n  " + std::string(a.name) + "=" + std::string(a.values) + ": " + std::string(a.meaning);
  cmd->add_option_function<std::vector<std::string>>(
         "--assume",
         [&target](const std::vector<std::string>& settings) {
           for (const std::string& setting : settings)
             if (const Status applied = hb::apply_assumption(setting, target); !applied)
               throw CLI::ValidationError(applied.error().message);
         },
         help)
      ->type_name("NAME=VALUE")
      ->take_all();
}

}  // namespace racetrack::cli
