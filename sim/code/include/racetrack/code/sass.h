// SASS instructions as nvdisasm prints them, parsed into what the data-flow
// analysis needs: the guard predicate, the opcode and its modifiers, and
// operands classified as registers (with the 64-bit pair flag), constant-
// bank references, memory references and immediates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace racetrack::code {

inline constexpr int kRZ = 255;  // R255 reads as zero, writes vanish
inline constexpr int kURZ = 63;  // likewise for uniform registers

struct RegRef {
  bool uniform = false;  // UR (uniform) or R
  int index = 0;         // kRZ / kURZ for the zero registers
  bool pair = false;     // ".64": the register and the next one
  bool narrow = false;   // ".U32": a 32-bit offset inside an address
  bool zero() const { return index == (uniform ? kURZ : kRZ); }
};

enum class OperandKind {
  kRegister,   // R / UR
  kPredicate,  // P / UP (carry no pointers)
  kConstant,   // c[bank][offset] or c[bank][Rx+offset]
  kMemory,     // [Rx.64+URy+imm], with an optional desc[URz] (the descriptor is not an address)
  kImmediate,  // integers and floats
  kSymbol,     // a function or label name, `(...)`, or 32@lo(sym) style relocations
  kOther,      // SR_TID.X, B0, SB0, ...
};

struct Operand {
  OperandKind kind = OperandKind::kOther;
  std::string text;
  RegRef reg;                   // kRegister
  uint32_t bank = 0;            // kConstant
  int64_t offset = 0;           // kConstant offset / kMemory immediate / kImmediate value
  std::optional<RegRef> index;  // kConstant: register index, if any
  std::vector<RegRef> address;  // kMemory: the registers that form the address
  bool relocation = false;      // kImmediate / kSymbol naming a module symbol (32@lo(x))
};

struct Instruction {
  uint64_t address = 0;
  std::string predicate;  // "", "@P0", "@!PT", ...
  std::string opcode;     // full, e.g. "LDG.E.64"
  std::string base;       // before the first '.': "LDG"
  std::vector<std::string> modifiers;
  std::vector<Operand> operands;
  bool control_flow = false;  // nvdisasm's "control-flow" attribute
  bool has_modifier(std::string_view m) const;
  // Never executes (@!PT) / may not execute (any other guard).
  bool never() const { return predicate == "@!PT" || predicate == "@!UPT"; }
  bool guarded() const { return !predicate.empty() && predicate != "@PT" && predicate != "@UPT" && !never(); }
};

// Parses one instruction from nvdisasm's fields (JSON "predicate",
// "opcode", "operands").
Instruction parse_instruction(uint64_t address, std::string_view predicate, std::string_view opcode,
                              std::string_view operands);

// Splits an operand list at top-level commas, also where nvdisasm's JSON
// runs a register into a memory reference ("R3[R2.64]").
std::vector<std::string> split_operands(std::string_view operands);

Operand parse_operand(std::string_view text);

}  // namespace racetrack::code
