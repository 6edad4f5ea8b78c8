// The GPU code in captured traces: module images stored once per content,
// each kernel op naming the module of its function (tied by the launch a
// lazy load happens in, a cuModuleLoad* call, or the kernel's name), and
// images left out by --no-code or over the size cap (docs/capture.md,
// "Kernel code").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "assembler_test_support.h"
#include "racetrack/traces/sha256.h"
#include "tiny_cubin.h"

namespace racetrack::capture::testing {
namespace {

using racetrack::testing::TempDir;

constexpr uint64_t kFunction = 0xF00;   // a CUfunction (or CUkernel) ...
constexpr uint64_t kModule = 0x30D000;  // ... in this CUmodule
constexpr uint64_t kOtherFunction = 0xF10;
constexpr uint64_t kOtherModule = 0x30E000;

std::string as_string(const std::vector<uint8_t>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::vector<uint32_t> kernel_modules(const v1::Chunk& trace) {
  std::vector<uint32_t> modules;
  for (const v1::Op* op : ops_of(trace, v1::Op::kKernel)) modules.push_back(op->kernel().module());
  return modules;
}

class ModuleTest : public ::testing::Test {
 protected:
  Assembled assemble_program(AssemblerOptions options = {}) {
    return assemble(program_, dir_.path("t.rtrace"), 0, options);
  }
  // A module of other content that defines the same kernels, loaded by a
  // call that explains nothing: kernel names alone can no longer tell.
  void load_twin(uint64_t cupti_module, const std::vector<std::string>& kernels) {
    program_.module_loaded(cupti_module, tiny_cubin(kernels, 99));
    program_.alloc(ApiKind::kMalloc, 0x7e0000000000 + (cupti_module << 24), 4096);
  }
  TempDir dir_;
  FakeProgram program_;
};

TEST_F(ModuleTest, EachContentIsStoredOnce) {
  const std::vector<uint8_t> a = tiny_cubin({"_Z1av"}, 1), b = tiny_cubin({"_Z1bv"}, 2);
  program_.module_loaded(1, a, 0, "/usr/lib/libfoo.so");
  program_.module_loaded(2, a);  // the same code loaded again (another context)
  program_.module_loaded(3, b);
  program_.launch(kLegacy, {}, "_Z1av");
  const Assembled out = assemble_program();
  ASSERT_EQ(out.trace.modules_size(), 2);
  const v1::Module& first = out.trace.modules(0);
  EXPECT_EQ(first.id(), 1u);
  EXPECT_EQ(first.sha256(), Sha256::hex(a.data(), a.size()));
  EXPECT_EQ(first.image(), as_string(a));
  EXPECT_FALSE(first.image_omitted());
  EXPECT_EQ(string_of(out.trace, first.name()), "/usr/lib/libfoo.so");
  EXPECT_EQ(out.trace.modules(1).image(), as_string(b));
  EXPECT_EQ(out.trace.modules(1).name(), 0u);  // no file known
  EXPECT_EQ(out.stats.modules.loads, 3u);
  EXPECT_EQ(out.stats.modules.stored, 2u);
  EXPECT_EQ(out.stats.modules.duplicates, 1u);
  EXPECT_EQ(out.stats.modules.image_bytes, a.size() + b.size());
  // Three loads before one launch tie none of them: the kernel's name does.
  EXPECT_THAT(kernel_modules(out.trace), ::testing::ElementsAre(1u));
}

TEST_F(ModuleTest, TwoLoadsInsideOneLaunchTieNeither) {
  program_.module_loaded(7, tiny_cubin({"_Z5otherv"}, 1), program_.next_correlation());
  program_.module_loaded(8, tiny_cubin({"_Z5otherv"}, 2), program_.next_correlation());
  program_.launch(kLegacy, {}, "_Z3onev", true, kFunction, kModule);
  EXPECT_THAT(kernel_modules(assemble_program().trace), ::testing::ElementsAre(0u));
}

TEST_F(ModuleTest, TwoLoadsOfOneContentInsideOneLaunchTieIt) {
  load_twin(6, {"_Z3onev"});
  program_.module_loaded(7, tiny_cubin({"_Z3onev"}), program_.next_correlation());
  program_.module_loaded(8, tiny_cubin({"_Z3onev"}), program_.next_correlation());
  program_.launch(kLegacy, {}, "_Z3onev", true, kFunction, kModule);
  EXPECT_THAT(kernel_modules(assemble_program().trace), ::testing::ElementsAre(2u));
}

// Under lazy loading the module loads inside the first launch of one of its
// kernels: that launch's CUmodule names it for every later launch (here
// where the kernels' names cannot: a twin module defines them too).
TEST_F(ModuleTest, ALoadInsideALaunchTiesTheLaunchedModule) {
  load_twin(6, {"_Z3onev", "_Z3twov"});
  program_.module_loaded(7, tiny_cubin({"_Z3onev", "_Z3twov"}), program_.next_correlation());
  program_.launch(kLegacy, {}, "_Z3onev", true, kFunction, kModule);
  program_.launch(kLegacy, {}, "_Z3twov", true, kOtherFunction, kModule);
  program_.launch(kLegacy, {}, "_Z5threev", true, 0xF20, kOtherModule);
  const Assembled out = assemble_program();
  EXPECT_THAT(kernel_modules(out.trace), ::testing::ElementsAre(2u, 2u, 0u));
  EXPECT_EQ(out.stats.modules.kernels_named, 2u);
  EXPECT_EQ(out.stats.modules.kernels_unnamed, 1u);
}

// The runtime half of a launch loads the module before the driver launch
// the capture sees: the thread's next call is that launch.
TEST_F(ModuleTest, ALoadJustBeforeALaunchTiesItToo) {
  load_twin(6, {"_Z3onev", "_Z3twov"});
  program_.module_loaded(7, tiny_cubin({"_Z3onev", "_Z3twov"}));
  program_.launch(kLegacy, {}, "_Z3onev", true, kFunction, kModule);
  program_.launch(kLegacy, {}, "_Z3twov", true, kOtherFunction, kModule);
  EXPECT_THAT(kernel_modules(assemble_program().trace), ::testing::ElementsAre(2u, 2u));
}

// A load some other call made (an eager load at the first runtime call)
// says nothing about the next launch.
TEST_F(ModuleTest, ALoadInsideAnotherCallDoesNotTieTheNextLaunch) {
  program_.module_loaded(7, tiny_cubin({"_Z3onev", "_Z3twov"}, 1), program_.next_correlation());
  program_.alloc(ApiKind::kMalloc, 0x7f0000000000, 1 << 20);
  program_.launch(kLegacy, {}, "_Z3onev", true, kFunction, kModule);
  program_.module_loaded(8, tiny_cubin({"_Z3onev", "_Z3twov"}, 2));  // untagged, but a free comes first
  program_.alloc(ApiKind::kFree, 0x7f0000000000, 0);
  program_.launch(kLegacy, {}, "_Z3twov", true, kOtherFunction, kOtherModule);
  const Assembled out = assemble_program();
  EXPECT_THAT(kernel_modules(out.trace), ::testing::ElementsAre(0u, 0u));
  EXPECT_EQ(out.trace.modules_size(), 2);  // stored all the same
}

// A load just before a launch that was some other call's (an unsubscribed
// cudaMemcpyToSymbol's, say): its cubin does not define the launched
// kernel, so the tie is not believed, and the kernel's name decides.
TEST_F(ModuleTest, ATieToACubinWithoutTheKernelIsNotBelieved) {
  program_.module_loaded(6, tiny_cubin({"_Z3onev"}, 1), 500);
  program_.module_loaded(7, tiny_cubin({"_Z8symbolsv"}, 2));
  program_.launch(kLegacy, {}, "_Z3onev", true, kFunction, kModule);
  program_.launch(kLegacy, {}, "_Z3twov", true, kOtherFunction, kModule);
  EXPECT_THAT(kernel_modules(assemble_program().trace), ::testing::ElementsAre(1u, 0u));
}

TEST_F(ModuleTest, ACuModuleLoadTiesItsHandle) {
  load_twin(6, {"_Z3onev"});
  ApiEvent& load = program_.call(ApiKind::kModuleLoad);
  load.domain = ApiDomain::kDriver;
  load.handle = kModule;  // *module at EXIT
  const uint64_t correlation = load.correlation;
  // Logged inside the call, so before its EXIT event.
  program_.module_loaded(9, tiny_cubin({"_Z3onev"}), correlation);
  std::swap(program_.events[program_.events.size() - 2], program_.events.back());
  program_.images.back().after_event = program_.events.size() - 2;
  program_.launch(kLegacy, {}, "_Z3onev", true, kFunction, kModule);
  EXPECT_THAT(kernel_modules(assemble_program().trace), ::testing::ElementsAre(2u));
}

// Where the handles say nothing, the one stored cubin that defines the
// kernel names it; a kernel two different cubins define stays unknown.
TEST_F(ModuleTest, KernelNamesTieWhatHandlesDoNot) {
  program_.module_loaded(1, tiny_cubin({"_Z4copyv", "_Z4fillv"}, 1), 500);
  program_.module_loaded(2, tiny_cubin({"_Z4fillv"}, 2), 501);
  program_.alloc(ApiKind::kMalloc, 0x7f0000000000, 1 << 20);
  program_.launch(kLegacy, {}, "_Z4copyv");
  program_.launch(kLegacy, {}, "_Z4fillv");
  program_.launch(kLegacy, {}, "_Z7unknownv");
  EXPECT_THAT(kernel_modules(assemble_program().trace), ::testing::ElementsAre(1u, 0u, 0u));
}

TEST_F(ModuleTest, NoCodeKeepsHashesAndNames) {
  const std::vector<uint8_t> a = tiny_cubin({"_Z1av"});
  program_.module_loaded(1, a, 0, "/usr/lib/libfoo.so");
  program_.launch(kLegacy, {}, "_Z1av");
  AssemblerOptions options;
  options.modules.keep_images = false;
  const Assembled out = assemble_program(options);  // validated
  ASSERT_EQ(out.trace.modules_size(), 1);
  const v1::Module& m = out.trace.modules(0);
  EXPECT_TRUE(m.image().empty());
  EXPECT_TRUE(m.image_omitted());
  EXPECT_EQ(m.sha256(), Sha256::hex(a.data(), a.size()));
  EXPECT_EQ(string_of(out.trace, m.name()), "/usr/lib/libfoo.so");
  EXPECT_THAT(kernel_modules(out.trace), ::testing::ElementsAre(1u));  // still tied, by name
  EXPECT_EQ(out.stats.modules.left_out, 1u);
  EXPECT_EQ(out.stats.modules.over_cap, 0u);
  EXPECT_EQ(out.stats.modules.image_bytes, 0u);
}

TEST_F(ModuleTest, ImagesOverTheCapAreLeftOutAndCounted) {
  const std::vector<uint8_t> a = tiny_cubin({"_Z1av"}, 1), b = tiny_cubin({"_Z1bv", "_Z5largerv"}, 2),
                             c = tiny_cubin({"_Z1cv"}, 3);
  ASSERT_GT(b.size(), c.size());
  program_.module_loaded(1, a);
  program_.module_loaded(2, b);
  program_.module_loaded(3, c);
  program_.launch(kLegacy, {}, "_Z1bv");
  AssemblerOptions options;
  options.modules.max_image_bytes = a.size() + c.size();  // room for a, then not for b; c fits
  const Assembled out = assemble_program(options);
  ASSERT_EQ(out.trace.modules_size(), 3);
  EXPECT_EQ(out.trace.modules(0).image(), as_string(a));
  EXPECT_TRUE(out.trace.modules(1).image_omitted());
  EXPECT_EQ(out.trace.modules(1).sha256(), Sha256::hex(b.data(), b.size()));
  EXPECT_EQ(out.trace.modules(2).image(), as_string(c));
  EXPECT_EQ(out.stats.modules.over_cap, 1u);
  EXPECT_EQ(out.stats.modules.over_cap_bytes, b.size());
  EXPECT_EQ(out.stats.modules.image_bytes, a.size() + c.size());
  EXPECT_THAT(kernel_modules(out.trace), ::testing::ElementsAre(2u));
}

// Images do not pile up in one chunk (the container's frames stop at 1 GiB).
TEST_F(ModuleTest, ImagesBeyondTheChunkBudgetGoIntoChunksOfTheirOwn) {
  std::vector<uint8_t> images[3];
  for (int i = 0; i < 3; ++i) {
    images[i] = tiny_cubin({"_Z1kv"}, static_cast<uint8_t>(i));
    program_.module_loaded(static_cast<uint64_t>(i + 1), images[i]);
  }
  program_.launch(kLegacy, {}, "_Z1av");
  AssemblerOptions options;
  options.modules.chunk_image_bytes = images[0].size() + 1;  // one image per chunk
  const Assembled out = assemble_program(options);
  ASSERT_EQ(out.trace.modules_size(), 3);
  auto reader = ChunkReader::open(dir_.path("t.rtrace"));
  ASSERT_TRUE(reader.ok());
  std::vector<int> modules_per_chunk;
  v1::Chunk chunk;
  while (auto more = reader->next(chunk)) {
    if (!*more) break;
    if (chunk.modules_size() > 0) modules_per_chunk.push_back(chunk.modules_size());
  }
  EXPECT_THAT(modules_per_chunk, ::testing::ElementsAre(1, 1, 1));
}

TEST_F(ModuleTest, ALoadWithoutAnImageStoresNothing) {
  program_.module_loaded(1, {});
  program_.launch(kLegacy, {}, "_Z1av");
  const Assembled out = assemble_program();
  EXPECT_EQ(out.trace.modules_size(), 0);
  EXPECT_THAT(kernel_modules(out.trace), ::testing::ElementsAre(0u));
}

}  // namespace
}  // namespace racetrack::capture::testing
