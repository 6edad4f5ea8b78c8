// A fake libcuda.so.1: the two driver functions the capture shim calls, with
// the CUDA 13 signatures. They know the kernels of fakes.h and answer like
// the driver (docs/cupti-notes.md §4.1, §4.3): parameter after parameter, then
// CUDA_ERROR_INVALID_VALUE one past the last; CUDA_ERROR_INVALID_HANDLE when
// cuFuncGetParamInfo is given a CUkernel.
#include <cuda.h>

#include <atomic>
#include <span>

#include "fakes.h"

namespace {

using racetrack::capture::shim_fakes::kAxpyKernel;
using racetrack::capture::shim_fakes::kAxpyParams;
using racetrack::capture::shim_fakes::kFillFunction;
using racetrack::capture::shim_fakes::kFillParams;
using racetrack::capture::shim_fakes::Param;

std::atomic<uint32_t> g_func_queries{0}, g_kernel_queries{0};

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

FakeCudaStats fake_cuda_stats(void) {
  return {g_func_queries.load(), g_kernel_queries.load()};
}

}  // extern "C"
