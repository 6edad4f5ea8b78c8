// The control-flow graph of a kernel and every function it calls (a
// supergraph): blocks of straight-line instructions; branches, convergence
// targets and indirect branches within a function; call edges into
// callees and return edges back to every call site (context-insensitive,
// so a callee's states join over all its callers).
#pragma once

#include <string>
#include <vector>

#include "opcode_traits.h"
#include "racetrack/code/disassembler.h"

namespace racetrack::code {

struct Block {
  uint32_t function = 0;         // index into Supergraph::functions
  uint32_t first = 0, last = 0;  // instruction indices, inclusive
  std::vector<uint32_t> successors;
};

struct Supergraph {
  std::vector<const DisassembledFunction*> functions;
  std::vector<Block> blocks;  // block 0 is the kernel's entry
  std::vector<std::string> notes;
};

// Empty blocks when the kernel is not among `all`.
Supergraph build_supergraph(const std::string& kernel, const std::vector<DisassembledFunction>& all);

// The callee a CALL names ("" for calls through a register or absolute
// addresses, which name no function of the cubin).
std::string call_target(const Instruction& call);

}  // namespace racetrack::code
