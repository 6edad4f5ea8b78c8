// `--assume NAME=VALUE`, the one spelling check, sim and replay share for
// the ordering model's assumptions (docs/ordering-rules.md, "Assumptions").
#pragma once

#include <CLI/CLI.hpp>

#include "racetrack/hb/assumptions.h"

namespace racetrack::cli {

// Adds the repeatable option to `cmd`; each use sets one assumption of
// `target` (which must outlive parsing). A name or value that is not known
// fails parsing with a message listing the valid ones.
void add_assume_option(CLI::App* cmd, hb::Assumptions& target);

}  // namespace racetrack::cli
