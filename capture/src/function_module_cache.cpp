#include "function_module_cache.h"

namespace racetrack::capture {

uint64_t FunctionModuleCache::get(uint64_t handle) {
  auto it = modules_.find(handle);
  if (it == modules_.end()) it = modules_.emplace(handle, query(handle)).first;
  return it->second;
}

uint64_t FunctionModuleCache::query(uint64_t handle) const {
  if (handle == 0) return 0;
  CUmodule module = nullptr;
  CUresult rc = CUDA_ERROR_NOT_SUPPORTED;
  if (queries_.func_get_module != nullptr)
    rc = queries_.func_get_module(&module, reinterpret_cast<CUfunction>(handle));
  if (rc == CUDA_ERROR_INVALID_HANDLE && queries_.kernel_get_library != nullptr &&
      queries_.library_get_module != nullptr) {
    CUlibrary library = nullptr;
    rc = queries_.kernel_get_library(&library, reinterpret_cast<CUkernel>(handle));
    if (rc == CUDA_SUCCESS) rc = queries_.library_get_module(&module, library);
  }
  return rc == CUDA_SUCCESS ? reinterpret_cast<uintptr_t>(module) : 0;
}

}  // namespace racetrack::capture
