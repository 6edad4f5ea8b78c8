// How long work tells its caller how far it has got, so a command can show
// progress (cli/progress.h) without the libraries printing anything.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace racetrack {

// Called now and then with what is being done ("checking", "verifying
// fixes"), how much of it is done and how much there is in all, in the
// caller's unit (bytes read, runs); `total` 0 when unknown. An empty
// function costs nothing.
using Progress = std::function<void(std::string_view stage, uint64_t done, uint64_t total)>;

}  // namespace racetrack
