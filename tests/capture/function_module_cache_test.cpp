// FunctionModuleCache over fake cuFuncGetModule / cuKernelGetLibrary /
// cuLibraryGetModule that count their calls: one driver lookup per handle,
// CUfunctions directly, CUkernels through their library.
#include "function_module_cache.h"

#include <gtest/gtest.h>

#include <map>

namespace racetrack::capture {
namespace {

constexpr uint64_t kFunction = 0xF0F000;  // a CUfunction in module kModuleA
constexpr uint64_t kKernel = 0xA0A000;    // a CUkernel of library kLibrary
constexpr uint64_t kLibrary = 0x11B000;
constexpr uint64_t kModuleA = 0x30D000;
constexpr uint64_t kModuleB = 0x30E000;  // kLibrary's module in the current context

struct FakeDriver {
  int func_calls = 0, kernel_calls = 0, library_calls = 0;
  CUresult library_error = CUDA_SUCCESS;
};
FakeDriver driver;

CUresult fake_func_get_module(CUmodule* module, CUfunction function) {
  ++driver.func_calls;
  if (reinterpret_cast<uint64_t>(function) != kFunction) return CUDA_ERROR_INVALID_HANDLE;
  *module = reinterpret_cast<CUmodule>(kModuleA);
  return CUDA_SUCCESS;
}

CUresult fake_kernel_get_library(CUlibrary* library, CUkernel kernel) {
  ++driver.kernel_calls;
  if (reinterpret_cast<uint64_t>(kernel) != kKernel) return CUDA_ERROR_INVALID_HANDLE;
  *library = reinterpret_cast<CUlibrary>(kLibrary);
  return CUDA_SUCCESS;
}

CUresult fake_library_get_module(CUmodule* module, CUlibrary library) {
  ++driver.library_calls;
  if (driver.library_error != CUDA_SUCCESS) return driver.library_error;
  if (reinterpret_cast<uint64_t>(library) != kLibrary) return CUDA_ERROR_INVALID_HANDLE;
  *module = reinterpret_cast<CUmodule>(kModuleB);
  return CUDA_SUCCESS;
}

class FunctionModuleCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { driver = FakeDriver{}; }
  FunctionModuleCache cache_{{&fake_func_get_module, &fake_kernel_get_library, &fake_library_get_module}};
};

TEST_F(FunctionModuleCacheTest, AFunctionAnswersDirectly) {
  EXPECT_EQ(cache_.get(kFunction), kModuleA);
  EXPECT_EQ(driver.func_calls, 1);
  EXPECT_EQ(driver.kernel_calls, 0);
}

TEST_F(FunctionModuleCacheTest, AKernelGoesThroughItsLibrary) {
  EXPECT_EQ(cache_.get(kKernel), kModuleB);
  EXPECT_EQ(driver.func_calls, 1);  // INVALID_HANDLE: not a CUfunction
  EXPECT_EQ(driver.kernel_calls, 1);
  EXPECT_EQ(driver.library_calls, 1);
}

TEST_F(FunctionModuleCacheTest, OneDriverLookupPerHandle) {
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(cache_.get(kFunction), kModuleA);
    ASSERT_EQ(cache_.get(kKernel), kModuleB);
  }
  EXPECT_EQ(driver.func_calls, 2);
  EXPECT_EQ(driver.kernel_calls, 1);
  EXPECT_EQ(driver.library_calls, 1);
  EXPECT_EQ(cache_.size(), 2u);
}

TEST_F(FunctionModuleCacheTest, UnknownHandlesAreZeroAndAskedOnce) {
  EXPECT_EQ(cache_.get(0xBAD), 0u);
  EXPECT_EQ(cache_.get(0xBAD), 0u);
  EXPECT_EQ(driver.func_calls, 1);
  EXPECT_EQ(driver.kernel_calls, 1);
  EXPECT_EQ(driver.library_calls, 0);
  EXPECT_EQ(cache_.get(0), 0u);  // no handle: not asked
  EXPECT_EQ(driver.func_calls, 1);
}

TEST_F(FunctionModuleCacheTest, ALibraryFailureIsUnknown) {
  driver.library_error = CUDA_ERROR_NOT_FOUND;
  EXPECT_EQ(cache_.get(kKernel), 0u);
}

TEST(FunctionModuleCache, WithoutTheLibraryEntryPointsKernelsAreUnknown) {
  driver = FakeDriver{};
  FunctionModuleCache cache({&fake_func_get_module, nullptr, nullptr});
  EXPECT_EQ(cache.get(kFunction), kModuleA);
  EXPECT_EQ(cache.get(kKernel), 0u);
}

}  // namespace
}  // namespace racetrack::capture
