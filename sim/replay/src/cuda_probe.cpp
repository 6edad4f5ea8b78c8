// Finds out whether a CUDA GPU is usable, without linking CUDA: the driver
// library is opened at run time, so the tool builds and runs everywhere.
#include <dlfcn.h>

#include "racetrack/replay/replay.h"

namespace racetrack::replay {

bool cuda_available(std::string& why) {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    why = "no CUDA driver on this machine (libcuda.so.1 not found): use --backend host";
    return false;
  }
  using Init = int (*)(unsigned);
  using Count = int (*)(int*);
  auto init = reinterpret_cast<Init>(dlsym(driver, "cuInit"));
  auto count = reinterpret_cast<Count>(dlsym(driver, "cuDeviceGetCount"));
  int devices = 0;
  const bool have_gpu = init && count && init(0) == 0 && count(&devices) == 0 && devices > 0;
  dlclose(driver);
  if (!have_gpu) {
    why = "no CUDA GPU on this machine (cuInit/cuDeviceGetCount found none): use --backend host";
    return false;
  }
  why = "this build has no CUDA replay backend yet (a GPU is present): use --backend host";
  return false;
}

}  // namespace racetrack::replay
