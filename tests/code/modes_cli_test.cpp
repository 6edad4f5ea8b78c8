// `racetrack modes` end to end on what nvcc built: cubins, fatbins (plain
// and compressed), a shared library, a trace holding modules; the result
// cache; and the errors, each exit 2 with a message naming the problem.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "racetrack/traces/builder.h"
#include "racetrack/traces/sha256.h"
#include "racetrack/traces/trace_io.h"
#include "run_cli.h"

namespace racetrack::code {
namespace {

using racetrack::testing::run_cli;
using racetrack::testing::shell_quote;
using racetrack::testing::TempDir;
namespace fs = std::filesystem;

std::string cubins(const std::string& name) {
  return std::string(RACETRACK_CODE_CUBINS_DIR) + "/" + name;
}

class ModesCli : public ::testing::Test {
 protected:
  void SetUp() override { setenv("XDG_CACHE_HOME", dir_.path("cache").c_str(), 1); }
  TempDir dir_;
};

TEST_F(ModesCli, CubinGivesKernelModesRules) {
  const auto run = run_cli(dir_, "modes --no-cache " + shell_quote(cubins("basic_sm90.cubin")));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("^k_copy$ reads=2 writes=1\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("^k_axpy$ reads=2,3 writes=3\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("cubin, 1 cubin(s) (sm_90)"), std::string::npos) << run.out;
}

TEST_F(ModesCli, FatbinsAndSharedLibrary) {
  for (const char* name : {"basic.fatbin", "basic_size.fatbin"}) {
    const auto run = run_cli(dir_, "modes --no-cache " + shell_quote(cubins(name)));
    ASSERT_EQ(run.code, 0) << name << ": " << run.err;
    EXPECT_NE(run.out.find("fatbin, 2 cubin(s) (sm_80, sm_90)"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("^k_copy$ reads=2 writes=1\n"), std::string::npos) << run.out;
  }
  const auto one = run_cli(dir_, "modes --no-cache --arch sm_80 " + shell_quote(cubins("basic.fatbin")));
  ASSERT_EQ(one.code, 0) << one.err;
  EXPECT_NE(one.out.find("1 cubin(s) (sm_80), 1 of other architectures skipped"), std::string::npos)
      << one.out;
  const auto lib = run_cli(dir_, "modes --no-cache " + shell_quote(cubins("libbasic.so")));
  ASSERT_EQ(lib.code, 0) << lib.err;
  EXPECT_NE(lib.out.find("shared-library"), std::string::npos) << lib.out;
  EXPECT_NE(lib.out.find("^k_copy$ reads=2 writes=1\n"), std::string::npos) << lib.out;
}

TEST_F(ModesCli, JsonFollowsTheSchema) {
  const auto run =
      run_cli(dir_, "modes --no-cache --format json " + shell_quote(cubins("control_sm90.cubin")));
  ASSERT_EQ(run.code, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["schema_version"], 1);
  ASSERT_EQ(j["modules"].size(), 1u);
  bool found = false;
  for (const auto& k : j["modules"][0]["kernels"]) {
    if (k["name"] != "k_pdl_wait") continue;
    found = true;
    EXPECT_EQ(k["words"][0], "write");
    EXPECT_EQ(k["words"][1], "read");
    EXPECT_EQ(k["grid_dependency_wait"], true);
    EXPECT_EQ(k["accesses_before_wait"], false);
    EXPECT_EQ(k["rule"], "^k_pdl_wait$ reads=2 writes=1");
  }
  EXPECT_TRUE(found);
}

TEST_F(ModesCli, ResultsAreCachedAndACorruptEntryIsRewritten) {
  const std::string input = shell_quote(cubins("atomics_sm90.cubin"));
  const auto first = run_cli(dir_, "modes " + input);
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_EQ(first.out.find("[cached]"), std::string::npos);
  std::vector<fs::path> entries;
  for (const auto& e : fs::recursive_directory_iterator(dir_.path("cache")))
    if (e.path().extension() == ".json") entries.push_back(e.path());
  ASSERT_EQ(entries.size(), 1u);
  const auto second = run_cli(dir_, "modes " + input);
  ASSERT_EQ(second.code, 0);
  EXPECT_NE(second.out.find("[cached]"), std::string::npos);
  // Same rules either way (the comment lines differ).
  auto rules = [](const std::string& out) {
    std::string kept;
    for (const auto& line : racetrack::testing::split_lines(out))
      if (line.rfind("#", 0) != 0) kept += line + "\n";
    return kept;
  };
  EXPECT_EQ(rules(second.out), rules(first.out));
  EXPECT_FALSE(rules(first.out).empty());
  std::ofstream(entries[0]) << "{ not json";
  const auto third = run_cli(dir_, "modes " + input);
  ASSERT_EQ(third.code, 0) << third.err;
  EXPECT_EQ(third.out.find("[cached]"), std::string::npos);
  EXPECT_EQ(rules(third.out), rules(first.out));
  const auto fourth = run_cli(dir_, "modes " + input);
  EXPECT_NE(fourth.out.find("[cached]"), std::string::npos) << "the corrupt entry was rewritten";
}

TEST_F(ModesCli, TraceModulesWithImagesAndWithFunctionsOnly) {
  std::ifstream in(cubins("basic_sm90.cubin"), std::ios::binary);
  const std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TraceBuilder b;
  const auto s = b.stream("compute", v1::ROLE_COMPUTE);
  const uint32_t with_image = b.module("basic_sm90.cubin", image);
  EXPECT_EQ(b.module("again", image), with_image) << "stored once per content";
  v1::FunctionCode f;
  f.set_name(b.intern("k_synthetic"));
  f.add_words(v1::WORD_WRITE);
  f.add_words(v1::WORD_READ);
  f.set_analyzer_version(1);
  const uint32_t analysed = b.module("", {}, std::string(64, 'a'), {f});
  b.kernel(s, "k_copy", {}, {});
  b.last_op().mutable_kernel()->set_module(with_image);
  const std::string path = dir_.path("t.rtrace");
  ASSERT_TRUE(save_trace(b.take(), path));
  const auto valid = run_cli(dir_, "validate " + shell_quote(path));
  EXPECT_EQ(valid.code, 0) << valid.err;
  const auto run = run_cli(dir_, "modes --no-cache " + shell_quote(path));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("module 1 (basic_sm90.cubin): cubin"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("^k_copy$ reads=2 writes=1\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("module 2: trace-functions"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("^k_synthetic$ reads=2 writes=1\n"), std::string::npos) << run.out;
  (void)analysed;
}

TEST_F(ModesCli, AModuleWhoseImageWasLeftOutSaysSoOrComesFromTheCache) {
  std::ifstream in(cubins("basic_sm90.cubin"), std::ios::binary);
  const std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TraceBuilder b;
  const auto s = b.stream("compute", v1::ROLE_COMPUTE);
  const std::string sha = Sha256::hex(reinterpret_cast<const uint8_t*>(image.data()), image.size());
  const uint32_t id = b.module("basic_sm90.cubin", {}, sha);
  b.kernel(s, "k_copy", {}, {});
  b.last_op().mutable_kernel()->set_module(id);
  v1::Chunk trace = b.take();
  trace.mutable_modules(0)->set_image_omitted(true);
  const std::string path = dir_.path("t.rtrace");
  ASSERT_TRUE(save_trace(trace, path));
  const auto unknown = run_cli(dir_, "modes " + shell_quote(path));
  ASSERT_EQ(unknown.code, 0) << unknown.err;
  EXPECT_NE(unknown.out.find("module 1 (basic_sm90.cubin): image-left-out"), std::string::npos) << unknown.out;
  EXPECT_NE(unknown.out.find("# note: the capture left this module's image out"), std::string::npos) << unknown.out;
  EXPECT_EQ(unknown.out.find("^k_copy$"), std::string::npos) << unknown.out;
  // Once the same image has been analysed, its hash finds the modes.
  ASSERT_EQ(run_cli(dir_, "modes " + shell_quote(cubins("basic_sm90.cubin"))).code, 0);
  const auto cached = run_cli(dir_, "modes " + shell_quote(path));
  ASSERT_EQ(cached.code, 0) << cached.err;
  EXPECT_NE(cached.out.find("module 1 (basic_sm90.cubin): cubin"), std::string::npos) << cached.out;
  EXPECT_NE(cached.out.find("[cached]"), std::string::npos) << cached.out;
  EXPECT_NE(cached.out.find("^k_copy$ reads=2 writes=1\n"), std::string::npos) << cached.out;
}

TEST_F(ModesCli, BadInputsExitTwoWithAMessage) {
  const std::string junk = dir_.path("junk.bin");
  std::ofstream(junk) << "this is no ELF and no fatbin";
  auto run = run_cli(dir_, "modes " + shell_quote(junk));
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("neither an ELF file"), std::string::npos) << run.err;
  run = run_cli(dir_, "modes /bin/sh");  // a host ELF without GPU code
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("without a .nv_fatbin section"), std::string::npos) << run.err;
  run = run_cli(dir_, "modes " + shell_quote(dir_.path("missing.cubin")));
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("cannot open"), std::string::npos) << run.err;
  run = run_cli(dir_, "modes --arch banana " + shell_quote(cubins("basic_sm90.cubin")));
  EXPECT_EQ(run.code, 2);
  run = run_cli(dir_, "modes --no-cache " + shell_quote(cubins("basic_sm90.cubin")) + " --format yaml");
  EXPECT_EQ(run.code, 2);
}

TEST_F(ModesCli, NoDisassemblerIsSaidClearly) {
  const std::string cmd = "env RACETRACK_NVDISASM=/nonexistent/nvdisasm " + shell_quote(RACETRACK_CLI) +
                          " modes --no-cache " + shell_quote(cubins("basic_sm90.cubin")) + " 2>" +
                          shell_quote(dir_.path("err.txt")) + " >/dev/null";
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(WEXITSTATUS(status), 2);
  const std::string err = racetrack::testing::read_bytes(dir_.path("err.txt"));
  EXPECT_NE(err.find("RACETRACK_NVDISASM is /nonexistent/nvdisasm"), std::string::npos) << err;
  // With nothing to find, every place looked at is named, with the fix.
  if (!fs::exists("/usr/local/cuda/bin/nvdisasm")) {
    const std::string none = "env -u RACETRACK_NVDISASM -u CUDA_HOME -u CUDA_PATH PATH=/nonexistent " +
                             shell_quote(RACETRACK_CLI) + " modes --no-cache " +
                             shell_quote(cubins("basic_sm90.cubin")) + " 2>" +
                             shell_quote(dir_.path("err2.txt")) + " >/dev/null";
    EXPECT_EQ(WEXITSTATUS(std::system(none.c_str())), 2);
    const std::string err2 = racetrack::testing::read_bytes(dir_.path("err2.txt"));
    EXPECT_NE(err2.find("looked at:"), std::string::npos) << err2;
    EXPECT_NE(err2.find("pip install triton"), std::string::npos) << err2;
  }
}

}  // namespace
}  // namespace racetrack::code
