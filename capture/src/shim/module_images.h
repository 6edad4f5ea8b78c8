// Module images on their way from the loading thread's CUPTI callback to
// the collector: copied in the callback (CUPTI's pointer is valid only
// there), taken by the collector after it drained the thread logs, so every
// load event it has seen has its image. A lock and an allocation per load
// are fine here: a module load costs the driver milliseconds, and happens
// once per module, not per launch.
#pragma once
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace racetrack::capture {

struct ModuleImage {
  uint64_t cupti_module = 0;
  std::vector<uint8_t> bytes;
  std::string source;  // the file the image was mapped from, empty when unknown
};

class ModuleImages {
 public:
  void push(uint64_t cupti_module, std::span<const uint8_t> bytes, std::string source) {
    ModuleImage image{cupti_module, {bytes.begin(), bytes.end()}, std::move(source)};
    std::lock_guard lock(mutex_);
    images_.push_back(std::move(image));
  }
  std::vector<ModuleImage> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(images_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<ModuleImage> images_;
};

}  // namespace racetrack::capture
