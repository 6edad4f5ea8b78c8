// A trace that stores a module's image (a cubin of our corpus) gets its
// kernels' modes from the machine code automatically: the checker analyses
// the image with nvdisasm, caches the result by the image's hash, and says
// so when no nvdisasm is there. Needs nvdisasm (this suite is registered
// only where configure found one; without it these tests fail).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "corpus_files.h"
#include "racetrack/race/checker.h"
#include "racetrack/race/code_modes.h"
#include "racetrack/race/report.h"
#include "racetrack/traces/builder.h"
#include "racetrack/traces/sha256.h"
#include "test_support.h"

namespace racetrack::code::test {
namespace {

namespace fs = std::filesystem;

// RACETRACK_NVDISASM set to something else for one scope.
class NvdisasmOverride {
 public:
  explicit NvdisasmOverride(const char* value) {
    if (const char* v = getenv("RACETRACK_NVDISASM")) saved_ = v;
    setenv("RACETRACK_NVDISASM", value, 1);
  }
  ~NvdisasmOverride() {
    if (saved_.empty())
      unsetenv("RACETRACK_NVDISASM");
    else
      setenv("RACETRACK_NVDISASM", saved_.c_str(), 1);
  }

 private:
  std::string saved_;
};

// k_copy(float* dst, const float* src, int n) of basic.cu, launched on the
// compute stream while a D2H copy reads dst: a WAR the machine code makes
// likely (dst is an allocator block, k_copy writes through word 1).
v1::Chunk copy_trace(const std::string& image, uint32_t cc_major = 0, uint32_t cc_minor = 0) {
  TraceBuilder b;
  if (cc_major) {
    v1::Device& d = *b.header().add_devices();
    d.set_cc_major(cc_major);
    d.set_cc_minor(cc_minor);
  }
  auto compute = b.stream("compute", v1::ROLE_COMPUTE);
  auto copy = b.stream("d2h", v1::ROLE_D2H);
  auto segment = b.device_buffer("segment", 1 << 20);
  auto dst = b.alloc_at("dst", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, compute, segment.base);
  auto src = b.alloc_at("src", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, compute, segment.base + 8192);
  auto host = b.pinned_buffer("host", 4096);
  const uint32_t module = b.module("basic_sm90.cubin", image);
  b.memcpy(copy, host, dst);
  b.kernel(compute, "k_copy", {}, {}, {.raw_words_only = true, .scalars = {dst.base, src.base, 1024}});
  b.last_op().mutable_kernel()->set_module(module);
  return b.take();
}

race::CheckResult check_with(const v1::Chunk& trace, const std::string& cache) {
  race::CheckOptions options;
  options.keep_all = true;
  options.min_confidence = race::Confidence::kPossible;
  options.code_modes = std::make_shared<race::CodeModeTable>(race::CodeModesOptions{cache, 1});
  return race::check_trace(trace, options);
}

TEST(TraceModules, AnImageInTheTraceIsAnalysedAutomaticallyAndCached) {
  racetrack::testing::TempDir dir;
  const std::string image = slurp(fs::path(RACETRACK_CODE_CUBINS_DIR) / "basic_sm90.cubin");
  ASSERT_FALSE(image.empty());
  const v1::Chunk trace = copy_trace(image);
  const std::string cache = dir.path("cache");

  const race::CheckResult result = check_with(trace, cache);
  EXPECT_TRUE(result.modes.notes.empty()) << result.modes.notes[0];
  EXPECT_EQ(result.modes.launches[static_cast<int>(race::ModeSource::kMachineCode)], 1u);
  ASSERT_EQ(result.all.size(), 1u);
  const race::Hazard& h = result.all[0];
  EXPECT_EQ(h.kind, race::HazardKind::kWar);
  EXPECT_EQ(h.confidence, race::Confidence::kLikely);
  EXPECT_EQ(h.second.access.mode_source, race::ModeSource::kMachineCode);
  EXPECT_TRUE(h.second.access.writes && !h.second.access.reads && h.second.access.mode_known);
  const std::string sha256 = Sha256::hex(image.data(), image.size());
  EXPECT_TRUE(fs::exists(fs::path(cache) / (sha256 + ".json"))) << "the analysis is cached by module hash";

  // From the cache: no disassembler needed any more.
  NvdisasmOverride none("/nonexistent/nvdisasm");
  const race::CheckResult cached = check_with(trace, cache);
  EXPECT_TRUE(cached.modes.notes.empty()) << cached.modes.notes[0];
  ASSERT_EQ(cached.all.size(), 1u);
  EXPECT_EQ(cached.all[0].second.access.mode_source, race::ModeSource::kMachineCode);
}

// A fatbin holds code for several architectures; only the devices' own is
// analysed, or all of it when there is none of theirs.
TEST(TraceModules, OnlyTheMachineCodeOfTheTracesDevicesIsAnalysed) {
  racetrack::testing::TempDir dir;
  const std::string image = slurp(fs::path(RACETRACK_CODE_CUBINS_DIR) / "basic.fatbin");
  ASSERT_FALSE(image.empty());
  const std::string sha256 = Sha256::hex(image.data(), image.size());
  for (const auto& [minor, entry] : {std::pair{0u, "-sm90.json"}, std::pair{9u, ".json"}}) {
    SCOPED_TRACE("sm_9" + std::to_string(minor));
    const std::string cache = dir.path("cache" + std::to_string(minor));
    const race::CheckResult result = check_with(copy_trace(image, 9, minor), cache);
    EXPECT_TRUE(result.modes.notes.empty()) << result.modes.notes[0];
    ASSERT_EQ(result.all.size(), 1u);
    EXPECT_EQ(result.all[0].second.access.mode_source, race::ModeSource::kMachineCode);
    EXPECT_TRUE(fs::exists(fs::path(cache) / (sha256 + entry))) << entry;
  }
}

TEST(TraceModules, WithoutADisassemblerTheReportSaysSoOnceAndTheModesAreUnknown) {
  const std::string image = slurp(fs::path(RACETRACK_CODE_CUBINS_DIR) / "basic_sm90.cubin");
  ASSERT_FALSE(image.empty());
  NvdisasmOverride none("/nonexistent/nvdisasm");
  const race::CheckResult result = check_with(copy_trace(image), "");
  ASSERT_EQ(result.modes.notes.size(), 1u);
  EXPECT_NE(result.modes.notes[0].find("machine code of 1 module not analysed: RACETRACK_NVDISASM is "
                                       "/nonexistent/nvdisasm"),
            std::string::npos)
      << result.modes.notes[0];
  ASSERT_EQ(result.all.size(), 1u);
  EXPECT_EQ(result.all[0].second.access.mode_source, race::ModeSource::kUnknown);
  EXPECT_EQ(result.all[0].confidence, race::Confidence::kPossible);
  race::ReportOptions report;
  const std::string text = race::format_text(result, report);
  EXPECT_NE(text.find("machine code of 1 module not analysed"), std::string::npos) << text;
}

}  // namespace
}  // namespace racetrack::code::test
