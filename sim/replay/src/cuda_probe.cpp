// Finds out whether a CUDA GPU is usable. The driver library is opened at
// run time (the tool builds and runs everywhere), which names what is
// missing most precisely; a build with the CUDA backend then asks its
// (statically linked) runtime too.
#include <dlfcn.h>

#include "racetrack/replay/replay.h"

#ifdef RACETRACK_HAVE_CUDA_BACKEND
#include "cuda_backend.h"
#endif

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
#ifdef RACETRACK_HAVE_CUDA_BACKEND
  return cuda_runtime_ready(why);
#else
  why =
      "this build has no CUDA replay backend (configured without nvcc, or with RACETRACK_BUILD_CUDA=OFF): "
      "use --backend host";
  return false;
#endif
}

}  // namespace racetrack::replay
