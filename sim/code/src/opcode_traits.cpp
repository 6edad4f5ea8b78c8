#include "opcode_traits.h"

#include <string>
#include <unordered_map>

namespace racetrack::code {
namespace {

const std::unordered_map<std::string, OpClass>& table() {
  static const std::unordered_map<std::string, OpClass> t = [] {
    std::unordered_map<std::string, OpClass> m;
    auto set = [&m](OpClass c, std::initializer_list<const char*> names) {
      for (const char* n : names) m.emplace(n, c);
    };
    set(OpClass::kAlu,
        {"MOV",       "UMOV",     "IADD3",    "UIADD3",   "IADD",      "IADD32I",   "IADD64", "VIADD",
         "VIADDMNMX", "LOP3",     "ULOP3",    "LOP",      "LOP32I",    "ULOP",      "SEL",    "USEL",
         "FSEL",      "PRMT",     "UPRMT",    "IMNMX",    "VIMNMX",    "VIMNMX3",   "IABS",   "SHF",
         "USHF",      "SHR",      "USHR",     "R2UR",     "SHFL",      "VOTE",      "VOTEU",  "REDUX",
         "MATCH",     "P2R",      "UP2UR",    "R2P",      "PLOP3",     "UPLOP3",    "F2F",    "F2I",
         "I2F",       "I2I",      "I2FP",     "F2FP",     "F2IP",      "FRND",      "POPC",   "UPOPC",
         "FLO",       "UFLO",     "BREV",     "UBREV",    "BMSK",      "UBMSK",     "SGXT",   "USGXT",
         "MOVM",      "BMOV",     "CS2UR",    "UISETP",   "ISCADD",    "UIADD3.64", "LEPC",   "ISETP",
         "FSETP",     "DSETP",    "HSETP2",   "PSETP",    "FCHK",      "ELECT",     "IDP",    "IDP4A",
         "IADD.64",   "UIADD.64", "IMNMX.64", "VABSDIFF", "VABSDIFF4", "QSPC"});
    set(OpClass::kProduct, {"IMAD", "UIMAD", "IMADSP", "XMAD"});
    set(OpClass::kLea, {"LEA", "ULEA"});
    set(OpClass::kShiftLeft, {"SHL", "USHL", "IMUL", "UIMUL", "IMUL32I"});
    set(OpClass::kNoPointer,
        {"S2R",       "S2UR",    "CS2R",    "FADD",    "FMUL",    "FFMA",        "FMNMX",
         "FMNMX3",    "FADD32I", "FMUL32I", "FFMA32I", "DADD",    "DMUL",        "DFMA",
         "DMNMX",     "HADD2",   "HMUL2",   "HFMA2",   "HMNMX2",  "HADD2_32I",   "HMUL2_32I",
         "HFMA2_32I", "MUFU",    "FSWZADD", "HMMA",    "IMMA",    "DMMA",        "BMMA",
         "HGMMA",     "IGMMA",   "QGMMA",   "BGMMA",   "UTCHMMA", "UTCQMMA",     "UTCIMMA",
         "FMUL2",     "FADD2",   "FFMA2",   "FHADD",   "FHFMA",   "GETLMEMBASE", "GETSPMMASK"});
    set(OpClass::kConstLoad, {"LDC", "ULDC", "LDCU"});
    set(OpClass::kGlobalLoad, {"LDG", "LDGMC"});
    set(OpClass::kGenericLoad, {"LD"});
    set(OpClass::kLocalLoad, {"LDL"});
    set(OpClass::kSharedLoad, {"LDS", "LDSM", "LDTM", "ULDS"});
    set(OpClass::kGlobalStore, {"STG"});
    set(OpClass::kGenericStore, {"ST"});
    set(OpClass::kLocalStore, {"STL"});
    set(OpClass::kSharedStore, {"STS", "STSM", "STAS", "USTS", "STTM"});
    set(OpClass::kAtomic, {"ATOMG", "REDG", "ATOM", "RED"});
    set(OpClass::kSharedAtomic, {"ATOMS", "SYNCS"});
    set(OpClass::kAsyncCopyIn, {"LDGSTS"});
    set(OpClass::kBulkCopy, {"UBLKCP", "UBLKRED", "UBLKPF"});
    set(OpClass::kTensorCopy, {"UTMALDG", "UTMASTG", "UTMAREDG", "UTMAPF"});
    set(OpClass::kBranch, {"BRA", "JMP"});
    set(OpClass::kIndirectBranch, {"BRX", "JMX", "BRXU", "JMXU"});
    set(OpClass::kExit, {"EXIT", "KILL"});
    set(OpClass::kReturn, {"RET"});
    set(OpClass::kCall, {"CALL"});
    set(OpClass::kGridWait, {"ACQBULK"});
    set(OpClass::kNoEffect,
        {"NOP",          "BAR",         "BSYNC",        "BREAK",       "WARPSYNC", "MEMBAR",
         "FENCE",        "ERRBAR",      "CCTL",         "CCTLL",       "CCTLT",    "DEPBAR",
         "LDGDEPBAR",    "PREEXIT",     "YIELD",        "NANOSLEEP",   "BPT",      "UTMACMDFLUSH",
         "UTMACCTL",     "WARPGROUP",   "WARPGROUPSET", "USETMAXREG",  "ARRIVES",  "ENDCOLLECTIVE",
         "UCGABAR_WAIT", "UCGABAR_ARV", "PMTRIG",       "SETLMEMBASE", "B2R",      "R2B",
         "CGAERRBAR",    "UVIRTCOUNT",  "ACQSHMINIT",   "RPCMOV",      "UTCBAR",   "UTCATOMSWS"});
    return m;
  }();
  return t;
}

}  // namespace

OpClass classify(const Instruction& ins) {
  if (ins.base == "BSSY") return OpClass::kConvergence;
  const auto& t = table();
  if (auto it = t.find(ins.base); it != t.end()) return it->second;
  return OpClass::kUnknown;
}

int dest_operand(const Instruction& ins, OpClass cls) {
  switch (cls) {
    case OpClass::kGlobalStore:
    case OpClass::kGenericStore:
    case OpClass::kLocalStore:
    case OpClass::kSharedStore:
    case OpClass::kAsyncCopyIn:
    case OpClass::kBulkCopy:
    case OpClass::kTensorCopy:
    case OpClass::kBranch:
    case OpClass::kIndirectBranch:
    case OpClass::kExit:
    case OpClass::kReturn:
    case OpClass::kCall:
    case OpClass::kConvergence:
    case OpClass::kGridWait:
    case OpClass::kNoEffect: return -1;
    default: break;
  }
  // RED/REDG have no destination; ATOM/ATOMG put theirs first.
  if (cls == OpClass::kAtomic && (ins.base == "RED" || ins.base == "REDG")) return -1;
  for (size_t i = 0; i < ins.operands.size(); ++i) {
    const OperandKind k = ins.operands[i].kind;
    if (k == OperandKind::kPredicate) continue;  // predicate results come first
    if (k != OperandKind::kRegister) return -1;
    // Comparisons write only predicates: their first register is a source.
    if (ins.base == "ISETP" || ins.base == "UISETP" || ins.base == "FSETP" || ins.base == "DSETP" ||
        ins.base == "HSETP2" || ins.base == "PSETP" || ins.base == "FCHK" || ins.base == "PLOP3" ||
        ins.base == "UPLOP3")
      return -1;
    return static_cast<int>(i);
  }
  return -1;
}

bool reads_pairs(const Instruction& ins) {
  for (const auto& m : ins.modifiers)
    if (m == "64" || m == "F64" || m == "WIDE") return true;
  return ins.base == "DADD" || ins.base == "DMUL" || ins.base == "DFMA" || ins.base == "DMNMX" ||
         ins.base == "DSETP" || ins.base == "IADD64";
}

DestWidth dest_width(const Instruction& ins, OpClass cls) {
  int bits = 32;
  for (const auto& m : ins.modifiers) {
    if (m == "64" || m == "F64" || m == "WIDE" || m == "S64" || m == "U64") bits = std::max(bits, 64);
    if (m == "128") bits = std::max(bits, 128);
    if (m == "256") bits = std::max(bits, 256);
  }
  switch (cls) {
    case OpClass::kConstLoad:
    case OpClass::kGlobalLoad:
    case OpClass::kGenericLoad:
    case OpClass::kLocalLoad: return {bits / 32, true};
    case OpClass::kProduct:
      if (ins.has_modifier("WIDE")) return {2, true};
      return {1, true};
    case OpClass::kNoPointer:
      // Matrix instructions write many accumulators; their results are no
      // pointers, so every register they might write is cleared.
      // Matrix instructions write their accumulators: no pointers. The
      // count follows from the shape; when it does not, the extra
      // registers are only joined into.
      if (ins.base == "HMMA" || ins.base == "IMMA" || ins.base == "BMMA")
        return {ins.has_modifier("F32") || ins.has_modifier("S32") ? 4 : 2, true};
      if (ins.base == "DMMA") return {2, true};
      if (ins.base.ends_with("GMMA")) {
        // HGMMA.64xNx16.F32: N/2 accumulator registers per thread (F16: N/4).
        for (const auto& m : ins.modifiers)
          if (m.starts_with("64x")) {
            const int n = std::atoi(m.c_str() + 3);
            const bool half = ins.has_modifier("F16");
            if (n > 0) return {std::max(1, half ? n / 4 : n / 2), true};
          }
        return {1, false};
      }
      return {bits / 32, bits == 32};
    case OpClass::kSharedLoad:
      if (ins.base == "LDSM") return {4, false};  // ldmatrix .x1/.x2/.x4: up to four registers
      return {bits / 32, true};
    case OpClass::kAtomic:
    case OpClass::kSharedAtomic: return {bits / 32, bits == 32};
    case OpClass::kAlu: return {bits / 32, bits == 32};
    default: return {std::max(1, bits / 32), false};
  }
}

MemoryEffect memory_effect(const Instruction& ins, OpClass cls) {
  switch (cls) {
    case OpClass::kGlobalLoad:
    case OpClass::kGenericLoad:
    case OpClass::kAsyncCopyIn: return {true, false};
    case OpClass::kGlobalStore:
    case OpClass::kGenericStore: return {false, true};
    case OpClass::kAtomic: return {true, true};
    case OpClass::kBulkCopy:
      if (ins.base == "UBLKPF") return {true, false};
      if (ins.base == "UBLKCP" && ins.modifiers.size() >= 2 && ins.modifiers[0] == "S" &&
          ins.modifiers[1] == "G")
        return {true, false};  // to shared from global
      if (ins.base == "UBLKCP" && ins.modifiers.size() >= 2 && ins.modifiers[0] == "G" &&
          ins.modifiers[1] == "S")
        return {false, true};  // to global from shared
      return {true, true};
    case OpClass::kTensorCopy:
      if (ins.base == "UTMALDG" || ins.base == "UTMAPF") return {true, false};
      if (ins.base == "UTMASTG") return {false, true};
      return {true, true};
    default: return {};
  }
}

}  // namespace racetrack::code
