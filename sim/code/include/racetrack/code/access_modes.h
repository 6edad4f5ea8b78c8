// What a kernel does with each 8-byte word of its parameter buffer, read
// from its machine code (docs/machine-code-modes.md): a forward data-flow
// analysis from the constant-bank loads of the parameters, through address
// arithmetic and the functions the kernel calls, to the address operands of
// its global and generic loads, stores, atomics, reductions and bulk/TMA
// copies.
//
// Sound in one direction: a word that is ever written through is never
// reported read-only or untouched; where the analysis cannot follow a word
// (stored to memory, passed to code it cannot see), it says kEscapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "racetrack/code/disassembler.h"
#include "racetrack/code/kernel_layout.h"

namespace racetrack::code {

// Bump when a change to the analysis changes its results: cached results of
// another version are recomputed.
inline constexpr uint32_t kAnalyzerVersion = 1;

enum class WordMode : uint8_t {
  kNone = 0,  // not a pointer the kernel reaches memory through
  kRead = 1,
  kWrite = 2,
  kReadWrite = 3,
  kEscapes = 4,  // cannot tell: treat as read-write
};

WordMode join(WordMode a, WordMode b);
const char* mode_name(WordMode mode);  // "none", "read", "write", "read-write", "escapes"
bool parse_mode_name(const std::string& name, WordMode& out);

struct KernelModes {
  std::string name;
  std::vector<WordMode> words;  // one per 8-byte parameter word
  // The kernel waits for the grids it depends on (griddepcontrol.wait,
  // cudaGridDependencySynchronize: ACQBULK) somewhere.
  bool grid_dependency_wait = false;
  // Some global access may run before every path has passed such a wait.
  bool accesses_before_wait = false;
  // It reaches memory through pointers no parameter word gives: loaded
  // from memory, module globals, returned by code it cannot follow.
  bool indirect_access = false;
  std::vector<std::string> notes;  // why words escape; forms not understood
};

// Joins two results for the same kernel (e.g. its sm_80 and sm_90 code).
void merge_into(KernelModes& into, const KernelModes& other);

// `functions` is the whole cubin's disassembly (the kernel and whatever it
// calls); `sm` its architecture (90 = sm_90).
KernelModes analyse_kernel(const KernelLayout& layout, uint32_t sm,
                           const std::vector<DisassembledFunction>& functions);

}  // namespace racetrack::code
