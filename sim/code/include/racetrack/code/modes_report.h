// Access-mode results as text and JSON: the `--kernel-modes` rule line of a
// kernel (docs/check.md, "Kernel modes"), and the JSON of a module's
// results that `racetrack modes --format json` prints
// (docs/schemas/modes.schema.json) and the result cache stores.
#pragma once

#include <nlohmann/json.hpp>

#include "racetrack/code/module_modes.h"

namespace racetrack::code {

inline constexpr int kModesSchemaVersion = 1;

// "^name$ reads=1,2 writes=2": escaped words are listed as both read and
// written, since a rule's unlisted words count as untouched.
std::string kernel_mode_rule(const KernelModes& k);
// "  # escapes=3; waits for its dependencies (PDL); indirect" or "".
std::string kernel_mode_comment(const KernelModes& k);

nlohmann::json kernel_json(const KernelModes& k);
Result<KernelModes> kernel_from_json(const nlohmann::json& j);

// The module part: counts and kernels.
nlohmann::json module_json(const ModuleModes& m);
Result<ModuleModes> module_from_json(const nlohmann::json& j);

// Words with a mode (not kNone), and of those the ones that are definite
// (not kEscapes).
struct ModeCounts {
  uint64_t kernels = 0, words_used = 0, definite = 0, escapes = 0, indirect_kernels = 0;
};
ModeCounts count_modes(const std::vector<KernelModes>& kernels);

}  // namespace racetrack::code
