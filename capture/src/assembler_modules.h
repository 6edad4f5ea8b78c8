// The GPU code the process loaded, for the trace assembler: each image
// stored once per content hash (Chunk.modules), and each launch tied to the
// module holding its function (Kernel.module). CUPTI's module-load callback
// gives an image and CUPTI's module id but no CUmodule, while a launch
// knows its function's CUmodule but no module id; the two meet in the call
// that loads the module: under lazy loading the first launch of one of its
// kernels (the load arrives inside it, or just before it from the runtime
// half of the call), else a cuModuleLoad* call; when one call saw loads of
// different contents, none is tied, and a tie to a cubin that does not
// define the launched kernel is not believed. A launch the handles say
// nothing about is tied by its kernel's name, when exactly one stored cubin
// defines that kernel (docs/capture.md, "Kernel code").
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "api_event.h"
#include "assembler_output.h"

namespace racetrack::capture {

struct ModuleOptions {
  bool keep_images = true;                   // false: --no-code (hashes and names only)
  uint64_t max_image_bytes = 256ull << 20;   // images stored in all; later ones are left out
  uint64_t chunk_image_bytes = 64ull << 20;  // a chunk holding this many image bytes is written
};

struct ModuleStats {
  uint64_t loads = 0;        // module-load callbacks
  uint64_t stored = 0;       // distinct contents (trace modules)
  uint64_t duplicates = 0;   // loads of a content already stored
  uint64_t image_bytes = 0;  // image bytes stored
  uint64_t left_out = 0;     // modules stored without their image (--no-code or the cap)
  uint64_t over_cap = 0;     // ... of them because of the cap
  uint64_t over_cap_bytes = 0;
  uint64_t kernels_named = 0;    // kernel ops that name their module
  uint64_t kernels_unnamed = 0;  // ... and that do not
};

class ModuleTable {
 public:
  ModuleTable(TraceOutput& out, ModuleOptions options) : out_(out), options_(options) {}

  // Every API event, in the order each thread logged them (EXIT order):
  // module loads, the launches and cuModuleLoad* calls that meet them.
  void on_event(const ApiEvent& event);
  // A loaded image (after every event logged before its load): stored, or
  // deduplicated against an earlier one. `source` is the file it was
  // mapped from, empty when unknown.
  void add_image(uint64_t cupti_module, std::span<const uint8_t> image, std::string_view source);
  // The trace module of a launch whose kernel is `kernel_name`, 0 when unknown.
  uint32_t module_of(const ApiEvent& launch, std::string_view kernel_name);

  const ModuleStats& stats() const { return stats_; }

 private:
  struct PendingLoad {
    uint64_t cupti_module;
    uint64_t correlation;  // the call in flight when it loaded, 0 = none
  };
  void bind(const std::vector<PendingLoad>& loads, uint64_t correlation, bool untagged_too,
            uint64_t module_handle, uint64_t function);
  uint32_t trace_module(const std::vector<uint64_t>& candidates, std::string_view kernel_name) const;
  void index_kernels(std::span<const uint8_t> image, uint32_t id);
  void index_cubin(std::span<const uint8_t> cubin, uint32_t id);

  TraceOutput& out_;
  ModuleOptions options_;
  ModuleStats stats_;
  std::unordered_map<uint64_t, std::vector<PendingLoad>> pending_;  // by OS thread
  // CUmodule, or CUfunction/CUkernel -> the CUPTI module ids of the loads its call explained.
  std::unordered_map<uint64_t, std::vector<uint64_t>> by_handle_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> by_function_;
  std::unordered_map<uint64_t, uint32_t> cupti_to_trace_;
  uint64_t generation_ = 0;           // TraceOutput::generation() pending_image_bytes_ counts for
  uint64_t pending_image_bytes_ = 0;  // image bytes in the pending chunk
  std::unordered_map<std::string, uint32_t> by_sha256_;
  static constexpr uint32_t kAmbiguous = UINT32_MAX;
  std::unordered_map<std::string, uint32_t> by_kernel_name_;  // trace module, or kAmbiguous
  // The kernels each readable module defines (absent: its image could not be read).
  std::unordered_map<uint32_t, std::unordered_set<std::string>> kernels_of_;
};

}  // namespace racetrack::capture
