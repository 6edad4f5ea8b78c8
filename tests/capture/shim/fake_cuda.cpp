// A fake libcuda.so.1: the driver functions the capture shim calls, with
// the CUDA 13 signatures. They know the kernels of fakes.h and answer like
// the driver (docs/cupti-notes.md §4.1, §4.3): parameter after parameter, then
// CUDA_ERROR_INVALID_VALUE one past the last; CUDA_ERROR_INVALID_HANDLE when
// cuFuncGetParamInfo or cuFuncGetModule is given a CUkernel.
#include <cuda.h>

#include <atomic>
#include <span>

#include "fakes.h"

namespace {

using racetrack::capture::shim_fakes::kAxpyKernel;
using racetrack::capture::shim_fakes::kAxpyLibrary;
using racetrack::capture::shim_fakes::kAxpyModule;
using racetrack::capture::shim_fakes::kAxpyParams;
using racetrack::capture::shim_fakes::kFillFunction;
using racetrack::capture::shim_fakes::kFillModule;
using racetrack::capture::shim_fakes::kFillParams;
using racetrack::capture::shim_fakes::Param;

std::atomic<uint32_t> g_func_queries{0}, g_kernel_queries{0}, g_module_queries{0};
std::atomic<uint64_t> g_hook_handle{0};
std::atomic<void (*)(void)> g_hook{nullptr};

CUresult answer(std::span<const Param> layout, size_t index, size_t* offset, size_t* size) {
  if (offset == nullptr || size == nullptr || index >= layout.size()) return CUDA_ERROR_INVALID_VALUE;
  *offset = layout[index].offset;
  *size = layout[index].size;
  return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

CUresult CUDAAPI cuFuncGetParamInfo(CUfunction func, size_t index, size_t* offset, size_t* size) {
  g_func_queries.fetch_add(1);
  if (reinterpret_cast<uintptr_t>(func) == kFillFunction) return answer(kFillParams, index, offset, size);
  return CUDA_ERROR_INVALID_HANDLE;  // a CUkernel, or nothing the driver knows
}

CUresult CUDAAPI cuKernelGetParamInfo(CUkernel kernel, size_t index, size_t* offset, size_t* size) {
  g_kernel_queries.fetch_add(1);
  if (reinterpret_cast<uintptr_t>(kernel) == kAxpyKernel) return answer(kAxpyParams, index, offset, size);
  return CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuFuncGetModule(CUmodule* module, CUfunction func) {
  g_module_queries.fetch_add(1);
  const auto handle = reinterpret_cast<uintptr_t>(func);
  if (handle == g_hook_handle.load())
    if (void (*hook)(void) = g_hook.exchange(nullptr)) hook();
  if (handle != kFillFunction) return CUDA_ERROR_INVALID_HANDLE;  // a CUkernel, or unknown
  *module = reinterpret_cast<CUmodule>(kFillModule);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuKernelGetLibrary(CUlibrary* library, CUkernel kernel) {
  if (reinterpret_cast<uintptr_t>(kernel) != kAxpyKernel) return CUDA_ERROR_INVALID_HANDLE;
  *library = reinterpret_cast<CUlibrary>(kAxpyLibrary);
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLibraryGetModule(CUmodule* module, CUlibrary library) {
  if (reinterpret_cast<uintptr_t>(library) != kAxpyLibrary) return CUDA_ERROR_INVALID_HANDLE;
  *module = reinterpret_cast<CUmodule>(kAxpyModule);
  return CUDA_SUCCESS;
}

FakeCudaStats fake_cuda_stats(void) {
  return {g_func_queries.load(), g_kernel_queries.load(), g_module_queries.load()};
}

void fake_cuda_set_module_query_hook(uint64_t handle, void (*hook)(void)) {
  g_hook_handle.store(handle);
  g_hook.store(hook);
}

}  // extern "C"
