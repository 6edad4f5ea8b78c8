// ParamLayoutCache over fake cuFuncGetParamInfo / cuKernelGetParamInfo that
// count their calls (docs/cupti-notes.md §4.3: "Func -> 400 -> Kernel").
#include "param_layout_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <utility>
#include <vector>

namespace racetrack::capture {
namespace {

using Layout = std::vector<std::pair<size_t, size_t>>;  // (offset, size) per parameter

// What the fake driver knows. Plain function pointers cannot carry state,
// so the fakes read this global, which each test resets.
struct FakeDriver {
  std::map<uint64_t, Layout> functions;
  std::map<uint64_t, Layout> kernels;
  // (handle, index) that fails with `error` instead of answering.
  uint64_t failing_handle = 0;
  size_t failing_index = 0;
  CUresult error = CUDA_SUCCESS;
  int function_calls = 0;
  int kernel_calls = 0;
};
FakeDriver driver;

CUresult answer(const std::map<uint64_t, Layout>& known, uint64_t handle, size_t index, size_t* offset,
                size_t* size) {
  if (handle == driver.failing_handle && index == driver.failing_index) return driver.error;
  const auto it = known.find(handle);
  if (it == known.end()) return CUDA_ERROR_INVALID_HANDLE;
  if (index >= it->second.size()) return CUDA_ERROR_INVALID_VALUE;  // one past the last
  *offset = it->second[index].first;
  *size = it->second[index].second;
  return CUDA_SUCCESS;
}

CUresult fake_func_param_info(CUfunction function, size_t index, size_t* offset, size_t* size) {
  ++driver.function_calls;
  return answer(driver.functions, reinterpret_cast<uint64_t>(function), index, offset, size);
}

CUresult fake_kernel_param_info(CUkernel kernel, size_t index, size_t* offset, size_t* size) {
  ++driver.kernel_calls;
  return answer(driver.kernels, reinterpret_cast<uint64_t>(kernel), index, offset, size);
}

// A provider that never says "no more parameters".
CUresult endless_param_info(CUfunction, size_t index, size_t* offset, size_t* size) {
  *offset = index;
  *size = 1;
  return CUDA_SUCCESS;
}

std::vector<std::pair<uint32_t, uint32_t>> pairs(const ParamLayout& layout) {
  std::vector<std::pair<uint32_t, uint32_t>> result;
  for (const ParamLayout::Param& param : layout.params) result.emplace_back(param.offset, param.size);
  return result;
}

class ParamLayoutCacheTest : public ::testing::Test {
 protected:
  void SetUp() override { driver = FakeDriver{}; }
  ParamLayoutCache cache_{fake_func_param_info, fake_kernel_param_info};
};

using ::testing::ElementsAre;
using ::testing::Pair;

TEST_F(ParamLayoutCacheTest, FunctionHandleUsesTheFunctionApi) {
  driver.functions[0xF00] = {{0, 8}, {8, 8}, {16, 4}, {20, 4}};  // axpy
  const ParamLayout* layout = cache_.get(0xF00);
  ASSERT_NE(layout, nullptr);
  EXPECT_THAT(pairs(*layout), ElementsAre(Pair(0u, 8u), Pair(8u, 8u), Pair(16u, 4u), Pair(20u, 4u)));
  EXPECT_EQ(layout->total_bytes(), 24u);
  EXPECT_EQ(driver.function_calls, 5);  // four parameters, then INVALID_VALUE
  EXPECT_EQ(driver.kernel_calls, 0);
}

TEST_F(ParamLayoutCacheTest, KernelHandleFallsBackToTheKernelApi) {
  driver.kernels[0xABC0] = {{0, 4}, {8, 648}};  // ATen elementwise_kernel (int, struct)
  const ParamLayout* layout = cache_.get(0xABC0);
  ASSERT_NE(layout, nullptr);
  EXPECT_THAT(pairs(*layout), ElementsAre(Pair(0u, 4u), Pair(8u, 648u)));
  EXPECT_EQ(layout->total_bytes(), 656u);
  EXPECT_EQ(driver.function_calls, 1);  // 400 at index 0
  EXPECT_EQ(driver.kernel_calls, 3);
}

TEST_F(ParamLayoutCacheTest, UnknownHandleIsNullAndNotAskedAgain) {
  EXPECT_EQ(cache_.get(0xDEAD), nullptr);
  EXPECT_EQ(driver.function_calls, 1);
  EXPECT_EQ(driver.kernel_calls, 1);
  EXPECT_EQ(cache_.get(0xDEAD), nullptr);
  EXPECT_EQ(driver.function_calls, 1);
  EXPECT_EQ(driver.kernel_calls, 1);
}

TEST_F(ParamLayoutCacheTest, KnownLayoutsAreCachedAndStayPut) {
  driver.functions[0xF00] = {{0, 8}};
  const ParamLayout* first = cache_.get(0xF00);
  ASSERT_NE(first, nullptr);
  const int calls = driver.function_calls;
  // Many more handles force the map to rehash; the first pointer must hold.
  for (uint64_t handle = 0x1000; handle < 0x1000 + 200; ++handle) {
    driver.functions[handle] = {{0, 4}};
    ASSERT_NE(cache_.get(handle), nullptr);
  }
  EXPECT_EQ(cache_.get(0xF00), first);
  EXPECT_EQ(driver.function_calls, calls + 200 * 2);  // only the new handles were asked about
  EXPECT_THAT(pairs(*first), ElementsAre(Pair(0u, 8u)));
  EXPECT_EQ(cache_.size(), 201u);
}

TEST_F(ParamLayoutCacheTest, KernelWithoutParametersHasAnEmptyLayout) {
  driver.functions[0xF00] = {};
  const ParamLayout* layout = cache_.get(0xF00);
  ASSERT_NE(layout, nullptr);
  EXPECT_TRUE(layout->params.empty());
  EXPECT_EQ(layout->total_bytes(), 0u);
}

TEST_F(ParamLayoutCacheTest, OtherErrorsGiveNoPartialLayout) {
  driver.functions[0xF00] = {{0, 8}, {8, 8}, {16, 4}};
  driver.failing_handle = 0xF00;
  driver.failing_index = 1;
  driver.error = CUDA_ERROR_DEINITIALIZED;
  EXPECT_EQ(cache_.get(0xF00), nullptr);
  EXPECT_EQ(driver.kernel_calls, 0);  // only 400 means "try it as a CUkernel"
}

TEST_F(ParamLayoutCacheTest, KernelApiFailureIsUnknown) {
  driver.kernels[0xABC0] = {{0, 8}, {8, 8}};
  driver.failing_handle = 0xABC0;
  driver.failing_index = 1;
  driver.error = CUDA_ERROR_INVALID_CONTEXT;
  // The function API answers 400 for index 0; the kernel API then fails at 1.
  EXPECT_EQ(cache_.get(0xABC0), nullptr);
  EXPECT_EQ(driver.kernel_calls, 2);
}

TEST_F(ParamLayoutCacheTest, NullHandleIsUnknownWithoutAsking) {
  EXPECT_EQ(cache_.get(0), nullptr);
  EXPECT_EQ(driver.function_calls, 0);
  EXPECT_EQ(driver.kernel_calls, 0);
}

TEST_F(ParamLayoutCacheTest, EndlessProviderIsNotBelieved) {
  ParamLayoutCache cache(endless_param_info, fake_kernel_param_info);
  EXPECT_EQ(cache.get(0xF00), nullptr);
}

TEST_F(ParamLayoutCacheTest, MissingKernelApiLeavesKernelsUnknown) {
  driver.kernels[0xABC0] = {{0, 8}};
  ParamLayoutCache cache(fake_func_param_info, nullptr);
  EXPECT_EQ(cache.get(0xABC0), nullptr);
  EXPECT_EQ(driver.function_calls, 1);
}

}  // namespace
}  // namespace racetrack::capture
