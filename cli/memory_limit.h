// A stated bound on a command's memory: past it an allocation fails, and the
// command says which limit it reached and exits 2, instead of the machine
// running out and the kernel's OOM killer ending it (or another program).
// Every subcommand but `capture`, whose child program inherits limits, takes
// `--max-memory-mib`; the default is 80% of the memory this process may use
// (the machine's, or its cgroup's limit when lower).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>

namespace racetrack::cli {

// Adds --max-memory-mib to `cmd` and applies the limit once its arguments
// are parsed, before it runs.
void add_memory_limit(CLI::App& cmd);

// The default limit in MiB.
uint64_t default_memory_limit_mib();

// Whether the kernel enforces the limit: not in sanitizer builds, whose
// shadow memory would count against it (the message and exit still apply).
bool memory_limit_enforced();

}  // namespace racetrack::cli
