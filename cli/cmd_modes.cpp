// racetrack modes FILE: which parameter words each kernel reads or writes
// through, read from the kernels' own machine code (docs/machine-code-modes.md).
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "racetrack/code/modes_cache.h"
#include "racetrack/code/modes_report.h"
#include "racetrack/traces/foreign_formats.h"
#include "racetrack/traces/sha256.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::cli {
namespace {

using namespace racetrack::code;

struct ModesArgs {
  std::string path;
  std::string format = "text";
  std::string arch;
  bool no_cache = false;
  unsigned jobs = 0;
};

// One module's results and where they came from.
struct ModuleReport {
  std::string label;  // "FILE" or "FILE module 2 (name)"
  std::string kind;   // cubin, fatbin, shared-library, trace-functions, image-left-out
  std::string sha256;
  bool cached = false;
  ModuleModes modes;
};

bool is_trace(const std::string& path, const std::string& head) {
  if (head.rfind("RTRACE", 0) == 0) return true;
  for (const char* ext : {".pbtxt", ".txtpb", ".textproto", ".json"})
    if (path.size() > std::strlen(ext) &&
        path.compare(path.size() - std::strlen(ext), std::string::npos, ext) == 0)
      return true;
  return false;
}

Result<std::optional<uint32_t>> parse_arch(const std::string& text) {
  if (text.empty() || text == "all") return std::optional<uint32_t>();
  std::string digits = text.rfind("sm_", 0) == 0 ? text.substr(3) : text;
  try {
    size_t used = 0;
    const unsigned long v = std::stoul(digits, &used);
    if (used == digits.size() && v >= 10 && v < 1000)
      return std::optional<uint32_t>(static_cast<uint32_t>(v));
  } catch (const std::exception&) {
  }
  return make_error("--arch: expected an SM version such as 90 or sm_90, got '" + text + "'");
}

class Runner {
 public:
  Runner(const ModesArgs& args, std::optional<uint32_t> arch)
      : args_(args), arch_(arch), cache_(args.no_cache ? std::string() : ModesCache::default_directory()) {}

  // Analyses (or fetches from the cache) one image.
  Result<ModuleReport> image(Bytes bytes, std::string label) {
    ModuleReport r;
    r.label = std::move(label);
    r.sha256 = Sha256::hex(bytes.data(), bytes.size());
    if (from_cache(r)) return r;
    auto set = find_cubins(bytes, arch_);
    if (!set) return set.error();
    r.kind = kind_name(set->kind);
    if (!tool_) {
      auto found = find_disassembler();
      if (!found) return found.error();
      tool_ = *found;
    }
    AnalyseOptions options;
    options.arch = arch_;
    options.jobs = args_.jobs;
    const bool show = isatty(2) && set->cubins.size() > 4;
    if (show)
      options.progress = [&](uint64_t done, uint64_t total) {
        std::cerr << "\r" << r.label << ": " << done << "/" << total << " cubins analysed" << std::flush;
        if (done == total) std::cerr << "\n";
      };
    auto modes = analyse_cubins(*tool_, *set, options);
    if (!modes) return modes.error();
    r.modes = std::move(*modes);
    if (!args_.no_cache) {
      if (auto stored = cache_.store(r.sha256, arch_, r.modes); !stored)
        std::cerr << "racetrack modes: not cached: " << stored.error().describe() << "\n";
    }
    return r;
  }

  // A module whose image the capture left out: only its hash is known, so its
  // modes come from the cache (an earlier `racetrack modes` of the same image)
  // or not at all, and the report says which.
  ModuleReport left_out(const v1::Module& m, std::string label) {
    ModuleReport r;
    r.label = std::move(label);
    r.sha256 = m.sha256();
    if (from_cache(r)) return r;
    r.kind = "image-left-out";
    r.modes.notes.push_back(
        "the capture left this module's image out (--no-code, or over --max-module-bytes): its kernels' modes are "
        "unknown; capture again without --no-code or with a larger --max-module-bytes, or run racetrack modes on "
        "the cubin, fatbin or library it came from");
    return r;
  }

  const std::optional<Disassembler>& tool() const { return tool_; }

 private:
  // Fills r from the cache entry of r.sha256, if there is one.
  bool from_cache(ModuleReport& r) {
    if (args_.no_cache || r.sha256.empty()) return false;
    auto hit = cache_.load(r.sha256, arch_);
    if (!hit) return false;
    r.modes = std::move(*hit);
    r.kind = r.modes.kind;
    r.cached = true;
    return true;
  }

  const ModesArgs& args_;
  std::optional<uint32_t> arch_;
  ModesCache cache_;
  std::optional<Disassembler> tool_;
};

// A module stored in a trace with analysed functions and no image.
ModuleReport from_functions(const v1::Module& m, const v1::Chunk& trace, std::string label) {
  ModuleReport r;
  r.label = std::move(label);
  r.kind = "trace-functions";
  r.sha256 = m.sha256();
  r.cached = true;
  const auto string = [&trace](uint32_t id) {
    return id >= 1 && id <= static_cast<uint32_t>(trace.strings_size()) ? trace.strings(id - 1)
                                                                        : std::string();
  };
  for (const auto& f : m.functions()) {
    KernelModes k;
    k.name = string(f.name());
    for (int w = 0; w < f.words_size(); ++w) k.words.push_back(static_cast<WordMode>(f.words(w)));
    k.grid_dependency_wait = f.grid_dependency_wait();
    k.accesses_before_wait = f.accesses_before_wait();
    k.indirect_access = f.indirect_access();
    r.modes.kernels.push_back(std::move(k));
  }
  return r;
}

void print_text(const std::vector<ModuleReport>& reports, const std::optional<Disassembler>& tool) {
  for (const auto& r : reports) {
    const ModeCounts c = count_modes(r.modes.kernels);
    std::cout << "# " << r.label << ": " << r.kind << ", " << r.modes.cubins << " cubin(s)";
    if (!r.modes.archs.empty()) {
      std::cout << " (";
      for (size_t i = 0; i < r.modes.archs.size(); ++i)
        std::cout << (i ? ", " : "") << "sm_" << r.modes.archs[i];
      std::cout << ")";
    }
    if (r.modes.cubins_skipped)
      std::cout << ", " << r.modes.cubins_skipped << " of other architectures skipped";
    std::cout << ", " << c.kernels << " kernel(s); " << c.definite << " of " << c.words_used
              << " pointer words definite" << (r.cached ? " [cached]" : "") << "\n";
    for (const auto& n : r.modes.notes) std::cout << "# note: " << n << "\n";
    for (const auto& k : r.modes.kernels) std::cout << kernel_mode_rule(k) << kernel_mode_comment(k) << "\n";
  }
  if (tool) std::cout << "# disassembler: " << tool->path << " (found by " << tool->found_by << ")\n";
}

void print_json(const std::vector<ModuleReport>& reports, const std::string& path,
                const std::optional<Disassembler>& tool) {
  nlohmann::json modules = nlohmann::json::array();
  for (const auto& r : reports) {
    nlohmann::json m = module_json(r.modes);
    m["label"] = r.label;
    m["kind"] = r.kind;  // "trace-functions" for a module with functions only
    m["sha256"] = r.sha256;
    m["cached"] = r.cached;
    modules.push_back(std::move(m));
  }
  nlohmann::json out = {{"schema_version", kModesSchemaVersion},
                        {"analyzer_version", kAnalyzerVersion},
                        {"input", path},
                        {"modules", modules}};
  if (tool) out["disassembler"] = {{"path", tool->path}, {"found_by", tool->found_by}};
  std::cout << out.dump(2) << "\n";
}

int run(const ModesArgs& args) {
  auto arch = parse_arch(args.arch);
  if (!arch) {
    std::cerr << arch.error().message << "\n";
    return kExitBadInput;
  }
  std::ifstream in(args.path, std::ios::binary);
  if (!in) {
    std::cerr << args.path << ": cannot open\n";
    return kExitBadInput;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  Runner runner(args, *arch);
  std::vector<ModuleReport> reports;
  auto as_bytes = [](const std::string& s) {
    return Bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  if (is_trace(args.path, bytes.substr(0, 8))) {
    auto trace = load_trace(args.path, ReadOptions{true, false});
    if (!trace) {
      std::cerr << trace.error().describe() << "\n";
      return kExitBadInput;
    }
    if (trace->modules_size() == 0) {
      std::cerr << args.path << ": the trace stores no modules (capture stores the GPU code a process loads; "
                << "run `racetrack modes` on the cubin, fatbin or library instead)\n";
      return kExitBadInput;
    }
    for (const auto& m : trace->modules()) {
      std::string label = args.path + " module " + std::to_string(m.id());
      if (m.name() && m.name() <= static_cast<uint32_t>(trace->strings_size()))
        label += " (" + trace->strings(m.name() - 1) + ")";
      if (m.image().empty()) {
        reports.push_back(m.functions_size() ? from_functions(m, *trace, label) : runner.left_out(m, label));
        continue;
      }
      auto r = runner.image(as_bytes(m.image()), label);
      if (!r) {
        std::cerr << label << ": " << r.error().describe() << "\n";
        return kExitBadInput;
      }
      reports.push_back(std::move(*r));
    }
  } else {
    auto r = runner.image(as_bytes(bytes), args.path);
    if (!r) {
      Error e = r.error();
      e.file = args.path;
      if (auto foreign = identify_foreign_trace(args.path)) e = Error{*foreign, {}, args.path};
      std::cerr << e.describe() << "\n";
      return kExitBadInput;
    }
    reports.push_back(std::move(*r));
  }
  if (args.format == "json")
    print_json(reports, args.path, runner.tool());
  else
    print_text(reports, runner.tool());
  return kExitOk;
}

}  // namespace

void add_modes(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "modes", "Which parameter words each kernel reads or writes through, from its machine code");
  auto args = std::make_shared<ModesArgs>();
  cmd->add_option("FILE", args->path, "trace (its modules), cubin, fatbin, or shared library holding fatbins")
      ->required();
  cmd->add_option("--format", args->format, "text (--kernel-modes rules) or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--arch", args->arch,
                  "only cubins of this architecture (90 or sm_90); default all, joined");
  cmd->add_flag("--no-cache", args->no_cache,
                "neither read nor write the result cache (~/.cache/racetrack/modes)");
  cmd->add_option("--jobs", args->jobs, "nvdisasm processes at once (default: one per CPU)");
  cmd->footer(
      "Needs nvdisasm: $RACETRACK_NVDISASM, the CUDA toolkit's ($CUDA_HOME, /usr/local/cuda, PATH), or the "
      "copy the triton wheel bundles (pip install triton). See docs/machine-code-modes.md.");
  cmd->callback([args, &exit_code] { exit_code = run(*args); });
}

}  // namespace racetrack::cli
