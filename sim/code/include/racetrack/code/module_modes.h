// Access modes for every kernel in a file: a cubin, a fatbin, or a host
// ELF holding fatbins. Each cubin is disassembled and analysed (several at
// once); a kernel present for several architectures gets the join of its
// results, so a word written in any of them is written.
#pragma once

#include <functional>
#include <optional>

#include "racetrack/code/access_modes.h"
#include "racetrack/code/fatbin.h"

namespace racetrack::code {

struct ModuleModes {
  std::string kind;                  // "cubin", "fatbin", "shared-library"
  std::vector<KernelModes> kernels;  // by name
  uint64_t cubins = 0;               // analysed
  uint64_t cubins_skipped = 0;       // other architectures than asked for
  uint64_t ptx_entries = 0;
  std::vector<uint32_t> archs;     // of the cubins analysed
  std::vector<std::string> notes;  // cubins that could not be disassembled
};

struct AnalyseOptions {
  std::optional<uint32_t> arch;  // only cubins of this SM version (90 = sm_90)
  unsigned jobs = 0;             // 0: one per CPU
  // Called after each cubin with (done, total), from the calling thread.
  std::function<void(uint64_t, uint64_t)> progress;
};

// One cubin; `sm_hint` is the fatbin entry's architecture (0 = unknown).
Result<std::vector<KernelModes>> analyse_cubin(const Disassembler& tool, Bytes cubin,
                                               uint32_t* sm_out = nullptr);

const char* kind_name(InputKind kind);

Result<ModuleModes> analyse_cubins(const Disassembler& tool, const CubinSet& set,
                                   const AnalyseOptions& options);

}  // namespace racetrack::code
