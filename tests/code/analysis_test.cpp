// The analysis on hand-written SASS for the tricky cases: loops,
// predicates, calls, 32-bit halves, stores of pointers, parameter-buffer
// addresses. Runs without nvdisasm.
#include <gtest/gtest.h>

#include <sstream>

#include "racetrack/code/access_modes.h"

namespace racetrack::code {
namespace {

// "[@P0] OPCODE operands" lines, 16 bytes apart from `start`.
DisassembledFunction fn(const std::string& name, const std::vector<std::string>& lines, uint64_t start = 0) {
  DisassembledFunction f;
  f.name = name;
  f.start = start;
  uint64_t address = start;
  for (const auto& line : lines) {
    std::stringstream in(line);
    std::string first, opcode, predicate;
    in >> first;
    if (first[0] == '@') {
      predicate = first;
      in >> opcode;
    } else {
      opcode = first;
    }
    std::string rest;
    std::getline(in, rest);
    f.instructions.push_back(parse_instruction(address, predicate, opcode, rest));
    address += 16;
  }
  return f;
}

KernelLayout layout(uint32_t base, uint32_t size) {
  KernelLayout l;
  l.name = "k";
  l.param_base = base;
  l.param_size = size;
  return l;
}

KernelModes run(const std::vector<std::string>& code, uint32_t size = 24, uint32_t sm = 90,
                std::vector<DisassembledFunction> more = {}) {
  std::vector<DisassembledFunction> all{fn("k", code)};
  for (auto& f : more) all.push_back(std::move(f));
  return analyse_kernel(layout(sm >= 90 ? 0x210 : 0x160, size), sm, all);
}

using M = WordMode;

TEST(Analysis, CopyKernelSm90) {
  const auto k =
      run({"LDC R1, c[0x0][0x28]", "S2R R0, SR_TID.X", "LDC.64 R2, c[0x0][0x218]",
           "ULDC.64 UR4, c[0x0][0x208]", "LDC.64 R4, c[0x0][0x210]", "IMAD.WIDE R2, R0, 0x4, R2",
           "LDG.E R3, desc[UR4][R2.64]", "IMAD.WIDE R4, R0, 0x4, R4", "STG.E desc[UR4][R4.64], R3", "EXIT"});
  EXPECT_EQ(k.words, (std::vector<M>{M::kWrite, M::kRead, M::kNone}));
  EXPECT_FALSE(k.indirect_access);
  EXPECT_FALSE(k.grid_dependency_wait);
}

TEST(Analysis, HalvesLoadedSeparatelySm80) {
  // sm_80: the two 32-bit halves of a pointer come from c[0x0] one by one.
  const auto k = run({"MOV R2, c[0x0][0x168]", "IMAD.MOV.U32 R3, RZ, RZ, c[0x0][0x16c]", "LDG.E R5, [R2.64]",
                      "IMAD.WIDE R6, R0, R4, c[0x0][0x160]", "STG.E [R6.64], R5", "EXIT"},
                     24, 80);
  EXPECT_EQ(k.words, (std::vector<M>{M::kWrite, M::kRead, M::kNone}));
}

TEST(Analysis, LoopCarriedPointerReachesFixedPoint) {
  // The pointer is advanced in a loop and written only in the second
  // iteration's path: the fixed point must carry it round the back edge.
  const auto k = run({"LDC.64 R2, c[0x0][0x210]",    // 0x00
                      "MOV R8, RZ",                  // 0x10
                      "MOV R9, RZ",                  // 0x20
                      "STG.E desc[UR4][R8.64], R0",  // 0x30: R8:R9 is the pointer from the 2nd iteration on
                      "IADD3 R8, P0, R2, 0x4, RZ",   // 0x40
                      "IADD3.X R9, RZ, R3, RZ, P0, !PT",  // 0x50
                      "ISETP.NE.AND P1, PT, R0, RZ, PT",  // 0x60
                      "@P1 BRA 0x30",                     // 0x70
                      "EXIT"});
  EXPECT_EQ(k.words[0], M::kWrite);
}

TEST(Analysis, PredicatedMoveIsAWeakUpdate) {
  // @P0 MOV may not run: the register keeps both values.
  const auto k = run({"LDC.64 R2, c[0x0][0x210]", "LDC.64 R4, c[0x0][0x218]", "@P0 MOV R2, R4",
                      "@P0 MOV R3, R5", "STG.E desc[UR4][R2.64], R0", "EXIT"});
  EXPECT_EQ(k.words[0], M::kWrite);
  EXPECT_EQ(k.words[1], M::kWrite);
}

TEST(Analysis, UnguardedMoveReplaces) {
  const auto k = run({"LDC.64 R2, c[0x0][0x210]", "LDC.64 R4, c[0x0][0x218]", "MOV R2, R4", "MOV R3, R5",
                      "STG.E desc[UR4][R2.64], R0", "EXIT"});
  EXPECT_EQ(k.words[0], M::kNone);
  EXPECT_EQ(k.words[1], M::kWrite);
}

TEST(Analysis, PredicatedStoreStillCounts) {
  const auto k = run({"LDC.64 R2, c[0x0][0x210]", "@!P0 STG.E.128 desc[UR4][R2.64+0x400], R4", "EXIT"});
  EXPECT_EQ(k.words[0], M::kWrite);
}

TEST(Analysis, NeverExecutedInstructionIsIgnored) {
  const auto k = run({"LDC.64 R2, c[0x0][0x210]", "@!PT STG.E desc[UR4][R2.64], R4", "EXIT"});
  EXPECT_EQ(k.words[0], M::kNone);
}

TEST(Analysis, StoredPointerEscapes) {
  const auto k =
      run({"LDC.64 R2, c[0x0][0x210]", "LDC.64 R4, c[0x0][0x218]", "STG.E.64 desc[UR4][R2.64], R4", "EXIT"});
  EXPECT_EQ(k.words[0], M::kWrite);
  EXPECT_EQ(k.words[1], M::kEscapes);
}

TEST(Analysis, PointerStoredAsTwoHalvesEscapes) {
  const auto k = run({"LDC.64 R2, c[0x0][0x210]", "LDC.64 R4, c[0x0][0x218]", "STG.E desc[UR4][R2.64], R4",
                      "STG.E desc[UR4][R2.64+0x4], R5", "EXIT"});
  EXPECT_EQ(k.words[1], M::kEscapes);
}

TEST(Analysis, OneHalfStoredDoesNotEscape) {
  // A 32-bit field of a struct parameter stored: no whole pointer leaves.
  KernelLayout l = layout(0x210, 24);
  l.params.push_back({0, 0, 24});  // one struct: words 1..3 may hold pointers
  const auto k = analyse_kernel(
      l, 90,
      {fn("k", {"LDC.64 R2, c[0x0][0x210]", "LDC R4, c[0x0][0x21c]", "STG.E desc[UR4][R2.64], R4", "EXIT"})});
  EXPECT_EQ(k.words[0], M::kWrite);
  EXPECT_EQ(k.words[1], M::kNone);
}

TEST(Analysis, ScalarParameterWordsHoldNoPointer) {
  // Word 2 is a 4-byte scalar: whatever flows from it, it is no pointer.
  KernelLayout l = layout(0x210, 16);
  l.params = {{0, 0, 8}, {1, 8, 4}};
  const auto k =
      analyse_kernel(l, 90,
                     {fn("k", {"LDC.64 R2, c[0x0][0x210]", "LDC R4, c[0x0][0x218]",
                               "IADD3 R2, P0, R2, R4, RZ", "STG.E desc[UR4][R2.64], R4", "EXIT"})});
  EXPECT_EQ(k.words[0], M::kWrite);
  EXPECT_EQ(k.words[1], M::kNone);
}

TEST(Analysis, PointerStagedInSharedMemoryEscapes) {
  const auto k = run({"LDC.64 R4, c[0x0][0x218]", "STS.64 [R0], R4", "LDS.64 R2, [R0]",
                      "STG.E desc[UR4][R2.64], R6", "EXIT"});
  EXPECT_EQ(k.words[1], M::kEscapes);
  EXPECT_TRUE(k.indirect_access);  // the reloaded pointer is an unknown one
}

TEST(Analysis, LoadedPointerIsIndirect) {
  const auto k = run(
      {"LDC.64 R2, c[0x0][0x210]", "LDG.E.64 R4, desc[UR4][R2.64]", "STG.E desc[UR4][R4.64], R0", "EXIT"});
  EXPECT_EQ(k.words[0], M::kRead);
  EXPECT_TRUE(k.indirect_access);
}

TEST(Analysis, LoadedIndexScaledIsNotIndirect) {
  // table[index[i]]: the loaded value is multiplied, so it is an offset.
  const auto k = run({"LDC.64 R2, c[0x0][0x218]", "LDG.E R6, desc[UR4][R2.64]", "LDC.64 R4, c[0x0][0x210]",
                      "IMAD.WIDE R4, R6, 0x4, R4", "LDG.E R7, desc[UR4][R4.64]", "EXIT"});
  EXPECT_EQ(k.words[0], M::kRead);
  EXPECT_EQ(k.words[1], M::kRead);
  EXPECT_FALSE(k.indirect_access);
}

TEST(Analysis, SpilledPointerSurvivesLocalMemory) {
  const auto k = run({"LDC.64 R2, c[0x0][0x210]", "STL.64 [R1+0x8], R2", "MOV R2, RZ", "MOV R3, RZ",
                      "LDL.64 R6, [R1+0x8]", "STG.E desc[UR4][R6.64], R0", "EXIT"});
  EXPECT_EQ(k.words[0], M::kWrite);
  EXPECT_FALSE(k.indirect_access);
}

TEST(Analysis, AtomicIsReadWrite) {
  const auto k = run({"LDC.64 R2, c[0x0][0x210]", "REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5", "EXIT"});
  EXPECT_EQ(k.words[0], M::kReadWrite);
}

TEST(Analysis, CallIsFollowedIntoTheCallee) {
  // The callee stores through the pointer the caller passed in R4:R5.
  auto callee = fn("store_helper", {"STG.E desc[UR4][R4.64], R6", "RET.REL.NODEC R20, k"}, 0x100);
  const auto k = run({"LDC.64 R4, c[0x0][0x218]", "MOV R20, 0x20", "CALL.REL.NOINC store_helper", "EXIT"}, 24,
                     90, {callee});
  EXPECT_EQ(k.words[1], M::kWrite);
  EXPECT_FALSE(k.indirect_access);
}

TEST(Analysis, ReturnedValueFlowsBack) {
  // The callee returns a parameter pointer in R4:R5; the caller writes through it.
  auto callee = fn("get", {"LDC.64 R4, c[0x0][0x210]", "RET.REL.NODEC R20, k"}, 0x100);
  const auto k =
      run({"MOV R20, 0x20", "CALL.REL.NOINC get", "STG.E desc[UR4][R4.64], R0", "EXIT"}, 24, 90, {callee});
  EXPECT_EQ(k.words[0], M::kWrite);
}

TEST(Analysis, UnknownCallMakesEverythingEscape) {
  const auto k = run({"LDC.64 R4, c[0x0][0x218]", "CALL.ABS.NOINC some_external", "EXIT"});
  EXPECT_EQ(k.words[1], M::kEscapes);
  EXPECT_TRUE(k.indirect_access);
}

TEST(Analysis, IndirectBranchReachesEveryInstruction) {
  // After the jump table, the code at 0x40 is reachable only through BRX.
  const auto k = run({"LDC.64 R2, c[0x0][0x210]",    // 0x00
                      "BRX R8, -0x20",               // 0x10
                      "EXIT",                        // 0x20
                      "EXIT",                        // 0x30
                      "STG.E desc[UR4][R2.64], R0",  // 0x40
                      "EXIT"});
  EXPECT_EQ(k.words[0], M::kWrite);
}

TEST(Analysis, GridDependencyWaitBeforeEveryAccess) {
  const auto k = run({"ACQBULK", "LDC.64 R2, c[0x0][0x210]", "LDG.E R0, desc[UR4][R2.64]", "EXIT"});
  EXPECT_TRUE(k.grid_dependency_wait);
  EXPECT_FALSE(k.accesses_before_wait);
}

TEST(Analysis, AccessOnAPathAroundTheWait) {
  const auto k = run({"LDC.64 R2, c[0x0][0x210]",    // 0x00
                      "@P0 BRA 0x30",                // 0x10
                      "ACQBULK",                     // 0x20
                      "LDG.E R0, desc[UR4][R2.64]",  // 0x30: reached with and without the wait
                      "EXIT"});
  EXPECT_TRUE(k.grid_dependency_wait);
  EXPECT_TRUE(k.accesses_before_wait);
}

TEST(Analysis, TensorMapInTheParameterBuffer) {
  // sm_90: c[0x0][0x198] is the generic address of the parameter buffer;
  // the tensor map is the 128-byte parameter at offset 0x80 (words 17..32).
  const auto k = run({"ULDC.64 UR8, c[0x0][0x198]", "UIADD3 UR8, UP0, UR8, 0x80, URZ",
                      "UIADD3.X UR9, URZ, UR9, URZ, UP0, !UPT", "UTMASTG.2D [UR4][UR8]", "EXIT"},
                     0x100);
  ASSERT_EQ(k.words.size(), 32u);
  for (int w = 1; w <= 16; ++w) EXPECT_EQ(k.words[w - 1], M::kNone) << w;
  for (int w = 17; w <= 32; ++w) EXPECT_EQ(k.words[w - 1], M::kWrite) << w;
}

TEST(Analysis, PointerLoadedFromTheParameterBufferByAddress) {
  // A callee given &param loads the pointer it holds, then writes through it.
  const auto k = run({"ULDC.64 UR4, c[0x0][0x198]", "IADD3 R4, P0, R0, UR4, RZ", "IMAD.X R5, RZ, RZ, UR5, P0",
                      "LD.E.64 R2, desc[UR6][R4.64]", "ST.E desc[UR6][R2.64], R9", "EXIT"});
  for (M m : k.words) EXPECT_TRUE(m == M::kWrite || m == M::kEscapes) << mode_name(m);
}

TEST(Analysis, UnknownInstructionWithMemoryEscapes) {
  const auto k = run({"LDC.64 R2, c[0x0][0x210]", "FROBNICATE.E [R2.64], R4", "EXIT"});
  EXPECT_EQ(k.words[0], M::kEscapes);
  EXPECT_FALSE(k.notes.empty());
}

TEST(Analysis, ModuleGlobalIsIndirect) {
  const auto k =
      run({"LDC.64 R4, c[0x4][RZ]", "REDG.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR4][R4.64], R3", "EXIT"});
  EXPECT_TRUE(k.indirect_access);
  EXPECT_EQ(k.words[0], M::kNone);
}

TEST(Analysis, NoLayoutMeansUnknown) {
  KernelLayout l;
  l.name = "k";
  l.param_size = 16;
  const auto k = analyse_kernel(l, 90, {fn("k", {"EXIT"})});
  EXPECT_EQ(k.words, (std::vector<M>{M::kEscapes, M::kEscapes}));
}

TEST(Operands, JsonRunTogetherForms) {
  EXPECT_EQ(split_operands("R3[R2.64]"), (std::vector<std::string>{"R3", "[R2.64]"}));
  EXPECT_EQ(split_operands("desc[UR4][R4.64],R3"), (std::vector<std::string>{"desc[UR4][R4.64]", "R3"}));
  EXPECT_EQ(split_operands("P0[UR4],R0"), (std::vector<std::string>{"P0", "[UR4]", "R0"}));
  const Operand c = parse_operand("c[0x0][R2+0x210]");
  EXPECT_EQ(c.kind, OperandKind::kConstant);
  EXPECT_EQ(c.offset, 0x210);
  ASSERT_TRUE(c.index);
  EXPECT_EQ(c.index->index, 2);
  const Operand m = parse_operand("desc[UR4][R6.64+0x400]");
  ASSERT_EQ(m.kind, OperandKind::kMemory);
  ASSERT_EQ(m.address.size(), 1u);
  EXPECT_TRUE(m.address[0].pair);
  EXPECT_EQ(m.offset, 0x400);
  const Operand bulk = parse_operand("[UR6][UR4]");
  EXPECT_EQ(bulk.address.size(), 2u);
  EXPECT_EQ(parse_operand("-R4.reuse").kind, OperandKind::kRegister);
  EXPECT_EQ(parse_operand("!PT").kind, OperandKind::kPredicate);
  EXPECT_EQ(parse_operand("2.384185791015625e-07").kind, OperandKind::kImmediate);
}

}  // namespace
}  // namespace racetrack::code
