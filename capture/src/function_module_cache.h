// The CUmodule of each launched handle, asked of the driver once per handle
// (so a launch costs a hash lookup, not a driver call). A CUfunction
// answers cuFuncGetModule; a CUkernel (what runtime launches pass, docs/cupti-notes.md
// §4.3) is CUDA_ERROR_INVALID_HANDLE there and goes through its library:
// cuKernelGetLibrary, then cuLibraryGetModule (the library's module in the
// current context). The entry points come in as function pointers so tests
// fake them without a GPU.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <unordered_map>

namespace racetrack::capture {

struct ModuleQueries {
  CUresult (*func_get_module)(CUmodule* module, CUfunction function) = nullptr;
  CUresult (*kernel_get_library)(CUlibrary* library, CUkernel kernel) = nullptr;
  CUresult (*library_get_module)(CUmodule* module, CUlibrary library) = nullptr;
};

// Not thread-safe by design, like ParamLayoutCache: one per thread.
class FunctionModuleCache {
 public:
  explicit FunctionModuleCache(ModuleQueries queries) : queries_(queries) {}

  // The handle's CUmodule, 0 when the driver cannot tell (cached too).
  uint64_t get(uint64_t handle);
  size_t size() const { return modules_.size(); }

 private:
  uint64_t query(uint64_t handle) const;

  ModuleQueries queries_;
  std::unordered_map<uint64_t, uint64_t> modules_;
};

}  // namespace racetrack::capture
