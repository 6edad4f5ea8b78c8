#include "racetrack/code/module_modes.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace racetrack::code {

Result<std::vector<KernelModes>> analyse_cubin(const Disassembler& tool, Bytes cubin, uint32_t* sm_out) {
  auto elf = ElfImage::parse(cubin);
  if (!elf) return elf.error();
  if (!elf->is_cuda())
    return make_error("not a CUDA cubin (ELF machine " + std::to_string(elf->machine()) + ")");
  const std::vector<KernelLayout> layouts = kernel_layouts(*elf);
  std::vector<KernelModes> out;
  if (layouts.empty()) return out;
  auto code = disassemble(tool, cubin);
  if (!code) return code.error();
  if (sm_out) *sm_out = code->sm;
  for (const KernelLayout& layout : layouts) out.push_back(analyse_kernel(layout, code->sm, code->functions));
  return out;
}

const char* kind_name(InputKind kind) {
  switch (kind) {
    case InputKind::kCubin: return "cubin";
    case InputKind::kFatbin: return "fatbin";
    case InputKind::kHostElf: return "shared-library";
  }
  return "cubin";
}

Result<ModuleModes> analyse_cubins(const Disassembler& tool, const CubinSet& set,
                                   const AnalyseOptions& options) {
  ModuleModes result;
  result.kind = kind_name(set.kind);
  result.ptx_entries = set.ptx_entries;
  result.cubins_skipped = set.skipped;
  std::vector<const EmbeddedCubin*> todo;
  for (const auto& c : set.cubins) {
    if (options.arch && c.arch != 0 && c.arch != *options.arch) {
      ++result.cubins_skipped;
      continue;
    }
    todo.push_back(&c);
  }
  struct Done {
    std::vector<KernelModes> kernels;
    uint32_t sm = 0;
    std::string failure;
  };
  std::vector<Done> done(todo.size());
  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::condition_variable changed;
  size_t finished = 0;
  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<size_t>(jobs, std::max<size_t>(1, todo.size())));
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < todo.size();) {
      const EmbeddedCubin& c = *todo[i];
      auto r = analyse_cubin(tool, c.image, &done[i].sm);
      if (r) {
        done[i].kernels = std::move(*r);
      } else {
        done[i].failure = "cubin at offset " + std::to_string(c.file_offset) +
                          (c.arch ? " (sm_" + std::to_string(c.arch) + ")" : std::string()) + ": " +
                          r.error().message;
        // Its kernels are still listed, with every word unknown.
        if (auto elf = ElfImage::parse(c.image)) {
          for (const KernelLayout& l : kernel_layouts(*elf)) {
            KernelModes k;
            k.name = l.name;
            k.words.assign(l.words(), WordMode::kEscapes);
            k.indirect_access = k.accesses_before_wait = true;
            k.notes.push_back("not analysed: " + r.error().message);
            done[i].kernels.push_back(std::move(k));
          }
        }
      }
      if (!done[i].sm) done[i].sm = c.arch;
      std::lock_guard lock(mutex);
      ++finished;
      changed.notify_one();
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(worker);
  {
    std::unique_lock lock(mutex);
    size_t reported = 0;
    while (reported < todo.size()) {
      changed.wait(lock, [&] { return finished > reported; });
      reported = finished;
      if (options.progress) {
        lock.unlock();
        options.progress(reported, todo.size());
        lock.lock();
      }
    }
  }
  for (auto& t : threads) t.join();

  std::map<std::string, KernelModes> by_name;
  std::set<uint32_t> archs;
  for (auto& d : done) {
    ++result.cubins;
    if (d.sm) archs.insert(d.sm);
    if (!d.failure.empty() && result.notes.size() < 32) result.notes.push_back(d.failure);
    for (auto& k : d.kernels) {
      auto [it, added] = by_name.try_emplace(k.name, k);
      if (!added) merge_into(it->second, k);
    }
  }
  for (auto& [name, k] : by_name) result.kernels.push_back(std::move(k));
  result.archs.assign(archs.begin(), archs.end());
  return result;
}

}  // namespace racetrack::code
