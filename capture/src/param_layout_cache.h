// Kernel parameter layouts per launched handle, asked of the driver once
// (docs/cupti-notes.md §4.1, §4.3). The driver entry points come in as function
// pointers so tests can fake them without a GPU.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "callback_decoder.h"

namespace racetrack::capture {

using FuncParamInfo = CUresult (*)(CUfunction func, size_t index, size_t* offset, size_t* size);
using KernelParamInfo = CUresult (*)(CUkernel kernel, size_t index, size_t* offset, size_t* size);

// Not thread-safe by design: the shim keeps one per thread, so the launch
// path takes no lock (a lock held in a callback can deadlock on re-entry).
class ParamLayoutCache {
 public:
  ParamLayoutCache(FuncParamInfo func_param_info, KernelParamInfo kernel_param_info);

  // The layout of a CUfunction or CUkernel handle, nullptr when neither API
  // knows it. Failures are cached too, so a bad handle is asked about once.
  // The pointer stays valid for the cache's lifetime.
  const ParamLayout* get(uint64_t handle);

  size_t size() const { return layouts_.size(); }

 private:
  std::optional<ParamLayout> query(uint64_t handle) const;

  FuncParamInfo func_param_info_;
  KernelParamInfo kernel_param_info_;
  // unordered_map never moves its elements, so handed-out pointers survive rehashing.
  std::unordered_map<uint64_t, std::optional<ParamLayout>> layouts_;
};

}  // namespace racetrack::capture
