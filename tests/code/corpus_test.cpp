// The analysis against the true modes of our own corpus
// (tests/code/kernels/*.cu, compiled by nvcc for sm_80 and sm_90 at build
// time), of Triton kernels compiled ahead of time, and — without ground
// truth — of a real CUDA library's fatbin.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "corpus_files.h"
#include "corpus_truth.h"
#include "racetrack/code/modes_report.h"
#include "racetrack/code/module_modes.h"

namespace racetrack::code::test {
namespace {

namespace fs = std::filesystem;

Bytes bytes_of(const std::string& s) {
  return Bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

Disassembler tool() {
  auto found = find_disassembler();
  EXPECT_TRUE(found) << (found ? "" : found.error().message);
  return found ? *found : Disassembler{};
}

// Analyses every cubin named and scores every kernel with a truth.
void score_cubins(const std::vector<std::pair<fs::path, std::vector<Truth>>>& inputs, Score& total,
                  std::set<std::string>& seen) {
  const Disassembler nvdisasm = tool();
  for (const auto& [cubin, truths] : inputs) {
    SCOPED_TRACE(cubin.string());
    const std::string image = slurp(cubin);
    ASSERT_FALSE(image.empty()) << cubin << " is missing";
    auto elf = ElfImage::parse(bytes_of(image));
    ASSERT_TRUE(elf) << elf.error().message;
    uint32_t sm = 0;
    auto modes = analyse_cubin(nvdisasm, bytes_of(image), &sm);
    ASSERT_TRUE(modes) << modes.error().message;
    std::map<std::string, KernelModes> by_name;
    for (auto& k : *modes) by_name[k.name] = k;
    for (const KernelLayout& layout : kernel_layouts(*elf)) {
      const Truth* truth = nullptr;
      for (const auto& t : truths)
        if (t.name == layout.name) truth = &t;
      ASSERT_NE(truth, nullptr) << "kernel " << layout.name << " has no // expect line";
      seen.insert(layout.name);
      score(*truth, layout, by_name.at(layout.name), sm, total);
    }
  }
}

void report(const char* what, const Score& s) {
  std::cout << what << ": " << s.kernels << " kernels, " << s.pointer_words << " pointer words, "
            << s.definite << " definite (" << (s.pointer_words ? 100.0 * s.definite / s.pointer_words : 0.0)
            << "%), " << s.exact << " exact, " << s.unsound << " unsound\n";
  for (const auto& f : s.failures) std::cout << "  UNSOUND " << f << "\n";
  ::testing::Test::RecordProperty(
      std::string(what) + "_definite_percent",
      std::to_string(s.pointer_words ? 100.0 * s.definite / s.pointer_words : 0.0));
}

TEST(Corpus, OwnKernelsAreSoundAndMostlyDefinite) {
  std::vector<std::pair<fs::path, std::vector<Truth>>> inputs;
  size_t truths = 0;
  for (const auto& entry : fs::directory_iterator(RACETRACK_CODE_KERNELS_DIR)) {
    if (entry.path().extension() != ".cu") continue;
    const auto t = parse_truths(slurp(entry.path()), entry.path().filename().string());
    truths += t.size();
    const std::string stem = entry.path().stem().string();
    for (int sm : {80, 90}) {
      const fs::path cubin =
          fs::path(RACETRACK_CODE_CUBINS_DIR) / (stem + "_sm" + std::to_string(sm) + ".cubin");
      if (stem == "hopper" && sm != 90) continue;  // TMA and bulk copies need sm_90
      inputs.emplace_back(cubin, t);
    }
  }
  ASSERT_GE(truths, 30u) << "the corpus must hold at least 30 kernels";
  Score s;
  std::set<std::string> seen;
  score_cubins(inputs, s, seen);
  EXPECT_EQ(seen.size(), truths) << "every kernel with an // expect line is in a cubin";
  report("corpus", s);
  EXPECT_EQ(s.unsound, 0u);
  EXPECT_GE(s.definite * 100, s.pointer_words * 85) << "fewer than 85% of pointer words got a definite mode";
}

TEST(Corpus, TritonKernelsAreSoundAndDefinite) {
  if (!*RACETRACK_CODE_TRITON_DIR) GTEST_SKIP() << "no python3 with triton at configure time";
  const fs::path dir = RACETRACK_CODE_TRITON_DIR;
  const auto truths = parse_truths(slurp(dir / "truth.txt"), "triton_kernels.py");
  ASSERT_GE(truths.size(), 4u);
  std::vector<std::pair<fs::path, std::vector<Truth>>> inputs;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".cubin") inputs.emplace_back(entry.path(), truths);
  Score s;
  std::set<std::string> seen;
  score_cubins(inputs, s, seen);
  EXPECT_EQ(seen.size(), truths.size());
  report("triton", s);
  EXPECT_EQ(s.unsound, 0u);
  EXPECT_GE(s.definite * 100, s.pointer_words * 85);
}

// A CUDA library nobody here wrote (the nvidia-cufile wheel's libcufile):
// no ground truth, so: every kernel is analysed without a failure, the
// fatbin's every cubin is read, and the fraction of words given a definite
// mode is reported.
TEST(Corpus, RealLibraryFatbin) {
  if (!*RACETRACK_CODE_LIBRARY || !fs::exists(RACETRACK_CODE_LIBRARY))
    GTEST_SKIP() << "the nvidia-cufile wheel is not installed (scripts/install-deps.sh installs it)";
  const std::string file = slurp(RACETRACK_CODE_LIBRARY);
  auto set = find_cubins(bytes_of(file));
  ASSERT_TRUE(set) << set.error().describe();
  EXPECT_EQ(set->kind, InputKind::kHostElf);
  EXPECT_GE(set->cubins.size(), 2u);
  auto modes = analyse_cubins(tool(), *set, {});
  ASSERT_TRUE(modes) << modes.error().message;
  EXPECT_TRUE(modes->notes.empty()) << modes->notes.front();
  EXPECT_EQ(modes->cubins, set->cubins.size());
  ASSERT_FALSE(modes->kernels.empty());
  const ModeCounts c = count_modes(modes->kernels);
  std::cout << "library " << RACETRACK_CODE_LIBRARY << ": " << c.kernels << " kernels, " << c.words_used
            << " words used, " << c.definite << " definite ("
            << (c.words_used ? 100.0 * c.definite / c.words_used : 0) << "%), " << c.indirect_kernels
            << " with indirect accesses\n";
  for (const auto& k : modes->kernels) {
    EXPECT_FALSE(k.words.empty()) << k.name << " has no parameter words";
    for (const auto& n : k.notes) EXPECT_EQ(n.find("not analysed"), std::string::npos) << k.name << ": " << n;
  }
}

}  // namespace
}  // namespace racetrack::code::test
