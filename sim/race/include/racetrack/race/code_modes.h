// The machine-code access modes of a trace's kernels: for every module the
// trace stores (Chunk.modules), its kernels' per-word modes, taken from the
// module's stored analysis (Module.functions) when that is of the current
// analyzer version, else analysed from its image through racetrack_code
// (nvdisasm, with the result cache). Modules arrive with the chunks; each is
// analysed when its chunk is added, before the ops that launch its kernels.
// Where a module cannot be analysed (no image, no nvdisasm) the table says
// so once, in notes(), and its kernels simply have no machine-code modes.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "racetrack/code/access_modes.h"
#include "racetrack/race/access.h"
#include "racetrack/traces/tables.h"

namespace racetrack::race {

struct CodeModesOptions {
  // Where analysis results are cached by module hash; "": no cache.
  std::string cache_directory;
  unsigned jobs = 0;  // nvdisasm processes at once (0: one per CPU)
};

// The options the commands use: the user's cache (~/.cache/racetrack/modes).
CodeModesOptions default_code_modes_options();

// Safe to share between threads and between the passes over one trace.
class CodeModeTable {
 public:
  explicit CodeModeTable(CodeModesOptions options = default_code_modes_options());

  // Adds the chunk's modules; a module id already added is skipped, so
  // every pass over a trace may add its chunks again. `tables` must hold
  // the chunk's strings (the function names).
  void add_modules(const v1::Chunk& chunk, const TraceTables& tables);

  // The modes of kernel `name` in module `module` (a Module.id), or null.
  // The pointer stays valid while the table lives.
  const code::KernelModes* find(uint32_t module, std::string_view name) const;

  // What could not be analysed and why, one line per cause.
  std::vector<std::string> notes() const;

  struct Counts {
    uint64_t modules = 0;
    uint64_t from_trace = 0;  // the trace's stored analysis
    uint64_t analysed = 0;    // from the image (or the result cache)
    uint64_t no_disassembler = 0;
    uint64_t no_code = 0;     // neither an image nor a current analysis
    uint64_t unreadable = 0;  // an image that is no cubin or fatbin
  };
  Counts counts() const;

 private:
  using Kernels = std::unordered_map<std::string, code::KernelModes>;
  // Kernels from a stored analysis; nullopt unless every function is of
  // the current analyzer version.
  static std::optional<Kernels> stored_analysis(const v1::Module& m, const TraceTables& tables);
  // Only the machine code of `arch` (the trace's devices) when the image
  // has some, else all of it.
  void analyse_image(const v1::Module& m, const std::string& label, std::optional<uint32_t> arch,
                     Kernels& out);

  CodeModesOptions options_;
  mutable std::mutex mutex_;
  std::map<uint32_t, Kernels> modules_;             // by Module.id; node-based, so pointers stay valid
  std::optional<Result<code::Disassembler>> tool_;  // looked for at the first image
  Counts counts_;
  std::vector<std::string> failures_;  // per module, the first few
  uint64_t cubins_failed_ = 0;
};

// The mode of argument word `index` (1-based) of a kernel whose machine
// code gives `code` (null: none) and whose --kernel-modes rule is `rule`
// (null: none), in that precedence: a word the machine code cannot follow
// (escapes) is settled by the rule if there is one, else unknown.
struct WordAccess {
  bool reads = true, writes = true, known = false;
  ModeSource source = ModeSource::kUnknown;
  bool none() const { return !reads && !writes; }  // not a pointer the kernel uses
};
WordAccess word_access(const code::KernelModes* code, const KernelModeRule* rule, uint32_t index);

}  // namespace racetrack::race
