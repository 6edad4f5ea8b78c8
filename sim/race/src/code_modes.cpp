#include "racetrack/race/code_modes.h"

#include <algorithm>

#include "racetrack/code/modes_cache.h"
#include "racetrack/code/module_modes.h"
#include "racetrack/traces/sha256.h"

namespace racetrack::race {
namespace {

constexpr size_t kMaxFailures = 5;

code::KernelModes from_function(const v1::FunctionCode& f, std::string name) {
  code::KernelModes k;
  k.name = std::move(name);
  for (int w = 0; w < f.words_size(); ++w) {
    const int v = f.words(w);
    // An unknown value (a newer writer) is no better than an escape.
    k.words.push_back(v >= 0 && v <= static_cast<int>(code::WordMode::kEscapes)
                          ? static_cast<code::WordMode>(v)
                          : code::WordMode::kEscapes);
  }
  k.grid_dependency_wait = f.grid_dependency_wait();
  k.accesses_before_wait = f.accesses_before_wait();
  k.indirect_access = f.indirect_access();
  return k;
}

// The SM version every device of the trace has (90 = sm_90), if they agree:
// only that machine code runs there, and a big fatbin holds many others.
std::optional<uint32_t> device_arch(const TraceTables& tables) {
  std::optional<uint32_t> arch;
  for (const auto& d : tables.header().devices()) {
    const uint32_t sm = d.cc_major() * 10 + d.cc_minor();
    if (d.cc_major() == 0 || (arch && *arch != sm)) return std::nullopt;
    arch = sm;
  }
  return arch;
}

std::string plural(uint64_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

}  // namespace

CodeModesOptions default_code_modes_options() {
  CodeModesOptions o;
  o.cache_directory = code::ModesCache::default_directory();
  return o;
}

CodeModeTable::CodeModeTable(CodeModesOptions options) : options_(std::move(options)) {}

std::optional<CodeModeTable::Kernels> CodeModeTable::stored_analysis(const v1::Module& m,
                                                                     const TraceTables& tables) {
  if (m.functions_size() == 0) return std::nullopt;
  Kernels kernels;
  for (const auto& f : m.functions()) {
    if (f.analyzer_version() != code::kAnalyzerVersion) return std::nullopt;
    std::string name(tables.string(f.name()));
    kernels.try_emplace(name, from_function(f, name));
  }
  return kernels;
}

void CodeModeTable::analyse_image(const v1::Module& m, const std::string& label, std::optional<uint32_t> arch,
                                  Kernels& out) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(m.image().data());
  const code::Bytes image(bytes, m.image().size());
  const std::string sha256 = Sha256::hex(image.data(), image.size());
  const code::ModesCache cache(options_.cache_directory);
  std::optional<code::ModuleModes> modes = cache.load(sha256, arch);
  Result<code::CubinSet> set = Error{};
  if (!modes) {
    set = code::find_cubins(image, arch);
    // No machine code of the device's own version (e.g. sm_80 code that an
    // sm_86 device runs): all of it, joined.
    if (set && arch && set->cubins.empty() && set->skipped) {
      arch.reset();
      modes = cache.load(sha256, arch);
      if (!modes) set = code::find_cubins(image);
    }
  }
  if (!modes) {
    if (!set) {
      ++counts_.unreadable;
      if (failures_.size() < kMaxFailures) failures_.push_back(label + ": " + set.error().describe());
      return;
    }
    if (!tool_) tool_ = code::find_disassembler();
    if (!*tool_) {
      ++counts_.no_disassembler;
      return;
    }
    code::AnalyseOptions analyse;
    analyse.jobs = options_.jobs;
    analyse.arch = arch;
    auto analysed = code::analyse_cubins(**tool_, *set, analyse);
    if (!analysed) {
      ++counts_.unreadable;
      if (failures_.size() < kMaxFailures) failures_.push_back(label + ": " + analysed.error().describe());
      return;
    }
    modes = std::move(*analysed);
    // A cache that cannot be written costs only time on the next run.
    if (!options_.cache_directory.empty()) (void)cache.store(sha256, arch, *modes);
  }
  ++counts_.analysed;
  cubins_failed_ += modes->notes.size();
  for (auto& k : modes->kernels) {
    std::string name = k.name;
    out.try_emplace(std::move(name), std::move(k));
  }
}

void CodeModeTable::add_modules(const v1::Chunk& chunk, const TraceTables& tables) {
  if (chunk.modules_size() == 0) return;
  std::lock_guard lock(mutex_);
  for (const v1::Module& m : chunk.modules()) {
    if (m.id() == 0 || modules_.count(m.id())) continue;
    Kernels& kernels = modules_[m.id()];
    ++counts_.modules;
    if (auto stored = stored_analysis(m, tables)) {
      kernels = std::move(*stored);
      ++counts_.from_trace;
      continue;
    }
    if (m.image().empty()) {
      ++counts_.no_code;
      continue;
    }
    std::string label = "module " + std::to_string(m.id());
    if (m.name()) label += " (" + std::string(tables.string(m.name())) + ")";
    analyse_image(m, label, device_arch(tables), kernels);
  }
}

const code::KernelModes* CodeModeTable::find(uint32_t module, std::string_view name) const {
  std::lock_guard lock(mutex_);
  auto m = modules_.find(module);
  if (m == modules_.end()) return nullptr;
  auto k = m->second.find(std::string(name));
  return k == m->second.end() ? nullptr : &k->second;
}

CodeModeTable::Counts CodeModeTable::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

std::vector<std::string> CodeModeTable::notes() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  const std::string prefix = "machine code of ";
  if (counts_.no_disassembler) {
    const std::string& why = tool_ && !*tool_ ? (*tool_).error().message : std::string();
    out.push_back(prefix + plural(counts_.no_disassembler, "module") + " not analysed: " +
                  (why.rfind("no nvdisasm found", 0) == 0 || why.empty()
                       ? "no nvdisasm found (install the CUDA toolkit or `pip install triton`, or set "
                         "RACETRACK_NVDISASM)"
                       : why));
  }
  if (counts_.no_code)
    out.push_back(prefix + plural(counts_.no_code, "module") +
                  " not analysed: the trace stores neither its image nor an analysis of this racetrack's "
                  "analyzer version " +
                  std::to_string(code::kAnalyzerVersion));
  if (counts_.unreadable) {
    std::string line = prefix + plural(counts_.unreadable, "module") + " not analysed: unreadable image";
    for (const auto& f : failures_) line += "; " + f;
    out.push_back(line);
  }
  if (cubins_failed_)
    out.push_back(plural(cubins_failed_, "cubin") +
                  " could not be disassembled: their kernels' pointer words count as unknown");
  return out;
}

WordAccess word_access(const code::KernelModes* code, const KernelModeRule* rule, uint32_t index) {
  WordAccess w;
  if (code && index >= 1 && index <= code->words.size()) {
    const code::WordMode mode = code->words[index - 1];
    if (mode != code::WordMode::kEscapes) {
      w.reads = mode == code::WordMode::kRead || mode == code::WordMode::kReadWrite;
      w.writes = mode == code::WordMode::kWrite || mode == code::WordMode::kReadWrite;
      w.known = true;
      w.source = ModeSource::kMachineCode;
      return w;
    }
    w.source = ModeSource::kMachineCode;  // unknown, unless a rule settles it
  }
  if (rule) {
    w.reads = std::count(rule->reads.begin(), rule->reads.end(), index) > 0;
    w.writes = std::count(rule->writes.begin(), rule->writes.end(), index) > 0;
    w.known = true;
    w.source = ModeSource::kRule;
  }
  return w;
}

}  // namespace racetrack::race
