// GPU code: the modules the driver loads (CUPTI's MODULE_LOADED resource
// callback, which carries the image; under lazy loading it fires at a
// module's first use, inside the call that needs it) and the driver calls
// that load a module by hand, whose CUmodule ties the image to the
// functions launched from it (docs/capture.md, "Kernel code").
#include "callback_decoder_family.h"

namespace racetrack::capture::decoder {
namespace {

using enum ApiKind;

RACETRACK_FIELD_AT(CUpti_ModuleResourceData, moduleId, 0);
RACETRACK_FIELD_AT(CUpti_ModuleResourceData, cubinSize, 8);
RACETRACK_FIELD_AT(CUpti_ModuleResourceData, pCubin, 16);

bool read_module_loaded(const CUpti_ResourceData& data, DriverQueries&, ApiEvent& event) {
  const auto& module = *static_cast<const CUpti_ModuleResourceData*>(data.resourceDescriptor);
  event.handle = module.moduleId;
  event.bytes = module.pCubin != nullptr ? module.cubinSize : 0;
  return true;
}

RACETRACK_FIELD_AT(cuModuleLoad_params, module, 0);
RACETRACK_FIELD_AT(cuModuleLoadData_params, module, 0);
RACETRACK_FIELD_AT(cuModuleLoadDataEx_params, module, 0);
RACETRACK_FIELD_AT(cuModuleLoadFatBinary_params, module, 0);

// EXIT: the loaded module's handle.
template <class Params>
void read_loaded_module(const Params& p, ApiEvent& event) {
  event.handle = out_value(p.module);
}

template <class Params>
constexpr CallSpec drv_load(CUpti_driver_api_trace_cbid cbid) {
  return drv(cbid, kModuleLoad, 0, nullptr, out<read_loaded_module<Params>>);
}

constexpr CallSpec kModuleCalls[] = {
    drv_load<cuModuleLoad_params>(CUPTI_DRIVER_TRACE_CBID_cuModuleLoad),
    drv_load<cuModuleLoadData_params>(CUPTI_DRIVER_TRACE_CBID_cuModuleLoadData),
    drv_load<cuModuleLoadDataEx_params>(CUPTI_DRIVER_TRACE_CBID_cuModuleLoadDataEx),
    drv_load<cuModuleLoadFatBinary_params>(CUPTI_DRIVER_TRACE_CBID_cuModuleLoadFatBinary),
    resource(CUPTI_CBID_RESOURCE_MODULE_LOADED, kModuleLoaded, read_module_loaded),
};
static_assert(!has_duplicates(kModuleCalls));

}  // namespace

std::span<const CallSpec> module_calls() {
  return kModuleCalls;
}

}  // namespace racetrack::capture::decoder

namespace racetrack::capture {

std::span<const uint8_t> module_image(CUpti_CallbackId cbid, const CUpti_ResourceData& data) {
  if (cbid != CUPTI_CBID_RESOURCE_MODULE_LOADED || data.resourceDescriptor == nullptr) return {};
  const auto& module = *static_cast<const CUpti_ModuleResourceData*>(data.resourceDescriptor);
  if (module.pCubin == nullptr) return {};
  return {reinterpret_cast<const uint8_t*>(module.pCubin), module.cubinSize};
}

}  // namespace racetrack::capture
