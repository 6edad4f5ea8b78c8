#include "racetrack/race/collectives.h"

namespace racetrack::race {

std::string_view collective_of(std::string_view name) {
  for (std::string_view prefix : {"ncclDevKernel_", "ncclKernel_"}) {
    if (name.substr(0, prefix.size()) != prefix) continue;
    const std::string_view rest = name.substr(prefix.size());
    return rest.substr(0, rest.find_first_of("_("));
  }
  return {};
}

}  // namespace racetrack::race
