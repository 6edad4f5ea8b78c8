#include "assembler_modules.h"

#include "racetrack/code/fatbin.h"
#include "racetrack/traces/sha256.h"

namespace racetrack::capture {
namespace {

// Chunks stay far below the container's 1 GiB frame limit: the pending
// chunk is written once its images reach ModuleOptions::chunk_image_bytes,
// and a single image larger than this is never stored.
constexpr uint64_t kMaxImageBytes = 512ull << 20;

constexpr uint8_t kSttFunc = 2;          // ELF symbol type FUNC
constexpr uint8_t kStoCudaEntry = 0x10;  // a kernel (an entry point), not a device function

bool is_api_call(const ApiEvent& e) {
  return e.domain == ApiDomain::kRuntime || e.domain == ApiDomain::kDriver;
}

}  // namespace

void ModuleTable::on_event(const ApiEvent& e) {
  if (e.kind == ApiKind::kModuleLoaded) {
    ++stats_.loads;
    pending_[e.os_tid].push_back({e.handle, e.correlation});
    return;
  }
  // NVTX marks and graph-node callbacks may fall between a load and its launch.
  if (!is_api_call(e)) return;
  const auto it = pending_.find(e.os_tid);
  if (it == pending_.end()) return;
  if (e.kind == ApiKind::kLaunch) {
    // Loaded inside the launch, or by the runtime half of it just before.
    bind(it->second, e.correlation, true, e.module, e.handle);
  } else if (e.kind == ApiKind::kModuleLoad && e.result == 0) {
    bind(it->second, e.correlation, false, e.handle, 0);
  }
  // Loads the thread's next call does not explain stay unbound (names still tie them).
  pending_.erase(it);
}

// Every load the call explains is a candidate; resolving takes them only
// when they all hold the same content (several modules loaded at once, by
// eager loading, say nothing about which one is the call's).
void ModuleTable::bind(const std::vector<PendingLoad>& loads, uint64_t correlation, bool untagged_too,
                       uint64_t module_handle, uint64_t function) {
  std::vector<uint64_t> candidates;
  for (const PendingLoad& load : loads) {
    const bool inside = correlation != 0 && load.correlation == correlation;
    if (inside || (untagged_too && load.correlation == 0)) candidates.push_back(load.cupti_module);
  }
  if (candidates.empty()) return;
  if (module_handle != 0) by_handle_[module_handle] = candidates;
  if (function != 0) by_function_[function] = std::move(candidates);
}

void ModuleTable::add_image(uint64_t cupti_module, std::span<const uint8_t> image, std::string_view source) {
  if (image.empty()) return;  // nothing to name the code by
  const std::string sha256 = Sha256::hex(image.data(), image.size());
  if (const auto known = by_sha256_.find(sha256); known != by_sha256_.end()) {
    ++stats_.duplicates;
    cupti_to_trace_[cupti_module] = known->second;
    return;
  }
  const bool fits =
      image.size() <= kMaxImageBytes && stats_.image_bytes + image.size() <= options_.max_image_bytes;
  const bool keep = options_.keep_images && fits;
  if (out_.generation() != generation_) {
    generation_ = out_.generation();
    pending_image_bytes_ = 0;
  }
  if (keep && pending_image_bytes_ > 0 && pending_image_bytes_ + image.size() > options_.chunk_image_bytes) {
    (void)out_.flush();  // a write error stays in out_.status() and ends the capture
    generation_ = out_.generation();
    pending_image_bytes_ = 0;
  }
  const uint32_t id = static_cast<uint32_t>(++stats_.stored);
  v1::Module& m = *out_.pending().add_modules();
  m.set_id(id);
  m.set_sha256(sha256);
  if (!source.empty()) m.set_name(out_.intern(source));
  if (keep) {
    m.set_image(image.data(), image.size());
    stats_.image_bytes += image.size();
    pending_image_bytes_ += image.size();
  } else {
    m.set_image_omitted(true);
    ++stats_.left_out;
    if (options_.keep_images) {
      ++stats_.over_cap;
      stats_.over_cap_bytes += image.size();
    }
  }
  by_sha256_.emplace(sha256, id);
  cupti_to_trace_[cupti_module] = id;
  index_kernels(image, id);
}

void ModuleTable::index_cubin(std::span<const uint8_t> cubin, uint32_t id) {
  auto elf = code::ElfImage::parse(cubin);
  if (!elf || !elf->is_cuda()) return;
  std::unordered_set<std::string>& kernels = kernels_of_[id];
  for (const code::ElfSymbol& symbol : elf->symbols()) {
    if (symbol.type() != kSttFunc || (symbol.other & kStoCudaEntry) == 0) continue;
    kernels.insert(symbol.name);
    auto [it, added] = by_kernel_name_.try_emplace(symbol.name, id);
    if (!added && it->second != id) it->second = kAmbiguous;
  }
}

// The kernels the image defines: a cubin (what CUPTI hands over), or each
// cubin of a fatbin. Other images are tied by handles alone.
void ModuleTable::index_kernels(std::span<const uint8_t> image, uint32_t id) {
  if (code::ElfImage::looks_like_elf(image)) return index_cubin(image, id);
  auto cubins = code::find_cubins(image);
  if (!cubins) return;
  for (const code::EmbeddedCubin& cubin : cubins->cubins) index_cubin(cubin.image, id);
}

// The one trace module all candidates hold, 0 when they differ, are
// unknown, or the module's cubins do not define the kernel (the load was
// another call's: a guess that could hand the kernel someone else's modes).
uint32_t ModuleTable::trace_module(const std::vector<uint64_t>& candidates,
                                   std::string_view kernel_name) const {
  uint32_t id = 0;
  for (uint64_t cupti_module : candidates) {
    const auto it = cupti_to_trace_.find(cupti_module);
    if (it == cupti_to_trace_.end() || (id != 0 && it->second != id)) return 0;
    id = it->second;
  }
  if (const auto kernels = kernels_of_.find(id);
      id != 0 && !kernel_name.empty() && kernels != kernels_of_.end())
    if (!kernels->second.contains(std::string(kernel_name))) return 0;
  return id;
}

uint32_t ModuleTable::module_of(const ApiEvent& launch, std::string_view kernel_name) {
  uint32_t id = 0;
  if (const auto h = by_handle_.find(launch.module); launch.module != 0 && h != by_handle_.end())
    id = trace_module(h->second, kernel_name);
  if (const auto f = by_function_.find(launch.handle);
      id == 0 && launch.handle != 0 && f != by_function_.end())
    id = trace_module(f->second, kernel_name);
  if (const auto n = by_kernel_name_.find(std::string(kernel_name)); id == 0 && n != by_kernel_name_.end())
    id = n->second != kAmbiguous ? n->second : 0;
  ++(id != 0 ? stats_.kernels_named : stats_.kernels_unnamed);
  return id;
}

}  // namespace racetrack::capture
