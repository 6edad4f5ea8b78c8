// Fills ParamLayoutCache by asking the driver for one parameter after
// another (there is no count API, §4.1).
#include "param_layout_cache.h"

namespace racetrack::capture {
namespace {

// A kernel takes at most 32764 bytes of parameters, each at least one byte:
// a provider that never says "no more" is not believed beyond that.
constexpr size_t kMaxParams = 32764;

// There is no count API: asks for index 0, 1, ... until
// CUDA_ERROR_INVALID_VALUE, which means one past the last parameter. Returns
// CUDA_SUCCESS with the layout, or the error that stopped it.
template <class Handle>
CUresult read_layout(CUresult (*param_info)(Handle, size_t, size_t*, size_t*), Handle handle,
                     ParamLayout& layout) {
  layout.params.clear();
  for (size_t index = 0; index < kMaxParams; ++index) {
    size_t offset = 0;
    size_t size = 0;
    const CUresult rc = param_info(handle, index, &offset, &size);
    if (rc == CUDA_ERROR_INVALID_VALUE) return CUDA_SUCCESS;
    if (rc != CUDA_SUCCESS) return rc;
    layout.params.push_back({static_cast<uint32_t>(offset), static_cast<uint32_t>(size)});
  }
  return CUDA_ERROR_UNKNOWN;
}

}  // namespace

ParamLayoutCache::ParamLayoutCache(FuncParamInfo func_param_info, KernelParamInfo kernel_param_info)
    : func_param_info_(func_param_info), kernel_param_info_(kernel_param_info) {}

const ParamLayout* ParamLayoutCache::get(uint64_t handle) {
  auto it = layouts_.find(handle);
  if (it == layouts_.end()) it = layouts_.emplace(handle, query(handle)).first;
  return it->second ? &*it->second : nullptr;
}

std::optional<ParamLayout> ParamLayoutCache::query(uint64_t handle) const {
  // A NULL handle would read as "no parameters" (the APIs answer
  // CUDA_ERROR_INVALID_VALUE for it): unknown instead.
  if (handle == 0) return std::nullopt;
  ParamLayout layout;
  CUresult rc = CUDA_ERROR_NOT_SUPPORTED;
  if (func_param_info_ != nullptr)
    rc = read_layout(func_param_info_, reinterpret_cast<CUfunction>(handle), layout);
  // Runtime-originated launches pass a CUkernel (§4.3).
  if (rc == CUDA_ERROR_INVALID_HANDLE && kernel_param_info_ != nullptr)
    rc = read_layout(kernel_param_info_, reinterpret_cast<CUkernel>(handle), layout);
  if (rc != CUDA_SUCCESS) return std::nullopt;
  return layout;
}

}  // namespace racetrack::capture
