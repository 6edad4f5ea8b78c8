// What each SASS opcode does, as far as pointers are concerned: which
// operands it reads and writes, whether it touches memory and which, and
// how it moves control. Opcodes not listed are kUnknown and handled
// conservatively (docs/machine-code-modes.md, "Unknown instructions").
#pragma once

#include "racetrack/code/sass.h"

namespace racetrack::code {

enum class OpClass {
  kAlu,             // dest = f(sources): pointer material flows through
  kProduct,         // IMAD family: dest = a * b + c; a product is no pointer
  kLea,             // dest = (a << s) + b
  kShiftLeft,       // left shifts and plain multiplies: no pointer
  kNoPointer,       // S2R, CS2R, float arithmetic results: never a pointer
  kConstLoad,       // LDC, ULDC, LDCU
  kGlobalLoad,      // LDG
  kGenericLoad,     // LD
  kLocalLoad,       // LDL
  kSharedLoad,      // LDS, LDSM
  kGlobalStore,     // STG
  kGenericStore,    // ST
  kLocalStore,      // STL
  kSharedStore,     // STS, STSM, STAS
  kAtomic,          // ATOMG, REDG, ATOM, RED (global or generic)
  kSharedAtomic,    // ATOMS
  kAsyncCopyIn,     // LDGSTS: global (last bracket) to shared
  kBulkCopy,        // UBLKCP, UBLKRED, UBLKPF
  kTensorCopy,      // UTMALDG, UTMASTG, UTMAREDG, UTMAPF: the address is a tensor map's
  kBranch,          // BRA, JMP
  kIndirectBranch,  // BRX, JMX
  kExit,
  kReturn,
  kCall,
  kConvergence,  // BSSY: names a reconvergence point, moves no control
  kGridWait,     // ACQBULK: griddepcontrol.wait
  kNoEffect,     // barriers, fences, NOP, predicate-only results
  kUnknown,
};

OpClass classify(const Instruction& ins);

// Registers written at the destination, and whether the count is exact
// (the extra registers of a vague width are joined into, never replaced).
struct DestWidth {
  int registers = 1;
  bool exact = true;
};
DestWidth dest_width(const Instruction& ins, OpClass cls);

// Index of the destination register operand, or -1 (stores, branches,
// predicate-only results).
int dest_operand(const Instruction& ins, OpClass cls);

// Whether register sources are read as 64-bit pairs (64-bit arithmetic).
bool reads_pairs(const Instruction& ins);

// For memory classes: does it read, write (both for atomics)?
struct MemoryEffect {
  bool reads = false, writes = false;
};
MemoryEffect memory_effect(const Instruction& ins, OpClass cls);

}  // namespace racetrack::code
