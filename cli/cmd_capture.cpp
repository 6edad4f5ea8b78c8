// `racetrack capture`: run a command with the CUPTI injection library and
// report the traces it wrote.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "capture_values.h"
#include "commands.h"
#include "numbers.h"
#include "own_directory.h"
#include "racetrack/traces/output_file.h"
#include "trace_stats.h"

namespace racetrack::cli {
namespace {

namespace fs = std::filesystem;

struct CaptureArgs {
  std::string output = "capture.rtrace";
  bool no_nvtx = false;
  bool torch = false;
  bool torch_stacks = false;
  std::string values;  // --values: racetrack_torch's values record
  bool no_code = false;
  std::string max_module_bytes;
  std::string library;
  std::vector<std::string> command;
};

fs::path binary_directory() {
  return own_directory().value_or(fs::current_path());
}

// The first of `relative` (to this binary's directory) that exists.
std::optional<fs::path> find_beside_binary(std::initializer_list<const char*> relative) {
  const fs::path dir = binary_directory();
  for (const char* r : relative) {
    std::error_code ec;
    fs::path p = fs::weakly_canonical(dir / r, ec);
    if (!ec && fs::exists(p)) return p;
  }
  return std::nullopt;
}

std::optional<fs::path> find_library(const std::string& explicit_path) {
  if (!explicit_path.empty()) return fs::absolute(explicit_path);
  if (const char* env = std::getenv("RACETRACK_CAPTURE_LIBRARY"); env && *env) return fs::absolute(env);
  // Build tree (build/cli -> build/capture), bundle or install (bin -> lib).
  return find_beside_binary(
      {"../capture/libracetrack_capture.so", "../lib/libracetrack_capture.so", "libracetrack_capture.so"});
}

std::optional<fs::path> find_python_package() {
  if (const char* env = std::getenv("RACETRACK_PYTHON_DIR"); env && *env) return fs::absolute(env);
  // Build tree (build/cli -> source/capture/python), bundle or install.
  return find_beside_binary({"../../capture/python", "../python", "../share/racetrack/python"});
}

std::string counts_line(const TraceStats& stats) {
  std::ostringstream out;
  out << stats.ops << " ops";
  const char* sep = " (";
  for (int k = 1; k < kOpKindCount; ++k) {
    if (stats.per_kind[k] == 0) continue;
    out << sep << stats.per_kind[k] << " " << op_kind_name(static_cast<OpKind>(k));
    sep = ", ";
  }
  if (std::string(sep) == ", ") out << ")";
  out << ", " << stats.tables.streams().size() << " streams";
  return out.str();
}

// "4096", "64K", "256M", "2G" (powers of 1024), at most 1 TiB.
Result<uint64_t> parse_size(const std::string& text) {
  std::string digits = text;
  uint64_t scale = 1;
  if (!digits.empty()) {
    switch (std::toupper(static_cast<unsigned char>(digits.back()))) {
      case 'K': scale = 1ull << 10; break;
      case 'M': scale = 1ull << 20; break;
      case 'G': scale = 1ull << 30; break;
      default: break;
    }
    if (scale != 1) digits.pop_back();
  }
  uint64_t value = 0;
  const std::string why = parse_number(digits, value);
  if (!why.empty() || value > (1ull << 40) / scale)
    return make_error("'" + text +
                      "': expected a size in bytes such as 4096, 64K, 256M or 2G, at most 1024G");
  return value * scale;
}

// Runs the command; returns its exit status the way a shell reports it.
int run_command(const std::vector<std::string>& command) {
  std::vector<char*> argv;
  for (const std::string& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    std::cerr << "racetrack capture: fork failed\n";
    return kExitBadInput;
  }
  if (child == 0) {
    execvp(argv[0], argv.data());
    std::cerr << "racetrack capture: cannot run " << command[0] << ": " << std::strerror(errno) << "\n";
    _exit(127);
  }
  // The terminal's Ctrl-C reaches the command too; the launcher outlives it
  // to report what was written.
  signal(SIGINT, SIG_IGN);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  signal(SIGINT, SIG_DFL);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

std::vector<std::string> read_lines(const fs::path& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

int capture(const CaptureArgs& args) {
  auto library = find_library(args.library);
  if (!library || !fs::exists(*library)) {
    std::cerr << "racetrack capture: libracetrack_capture.so not found ("
              << (library ? library->string() : "looked beside " + binary_directory().string())
              << "); pass --library PATH or set RACETRACK_CAPTURE_LIBRARY\n";
    return kExitBadInput;
  }
  const fs::path output = fs::absolute(args.output);
  // Before the program runs: a capture that cannot be written is known now.
  if (auto usable = check_output(output.string(), {}); !usable) {
    std::cerr << "racetrack capture: -o " << usable.error().describe() << "\n";
    return kExitBadInput;
  }
  std::error_code ec;
  fs::remove(output, ec);
  char index_template[] = "/tmp/racetrack-capture-XXXXXX";
  const int index_fd = mkstemp(index_template);
  if (index_fd < 0) {
    std::cerr << "racetrack capture: cannot create a temporary file in /tmp\n";
    return kExitBadInput;
  }
  close(index_fd);
  const fs::path index = index_template;

  if (const char* old = std::getenv("CUDA_INJECTION64_PATH"); old && *old)
    std::cerr << "racetrack capture: replacing CUDA_INJECTION64_PATH=" << old << "\n";
  setenv("CUDA_INJECTION64_PATH", library->c_str(), 1);
  setenv("RACETRACK_CAPTURE_OUTPUT", output.c_str(), 1);
  setenv("RACETRACK_CAPTURE_INDEX", index.c_str(), 1);
  if (args.no_nvtx) {
    setenv("RACETRACK_CAPTURE_NVTX", "0", 1);
  } else {
    // NVTX loads its tool from here; the library hands it to the process's CUPTI.
    setenv("NVTX_INJECTION64_PATH", library->c_str(), 1);
  }
  if (args.no_code) setenv("RACETRACK_CAPTURE_CODE", "0", 1);
  if (!args.max_module_bytes.empty()) {
    auto bytes = parse_size(args.max_module_bytes);
    if (!bytes) {
      std::cerr << "racetrack capture: --max-module-bytes " << bytes.error().message << "\n";
      return kExitBadInput;
    }
    setenv("RACETRACK_CAPTURE_MAX_MODULE_BYTES", std::to_string(*bytes).c_str(), 1);
  }
  if (args.torch || args.torch_stacks) {
    auto package = find_python_package();
    if (!package) {
      std::cerr << "racetrack capture: --torch needs the racetrack Python package "
                   "(capture/python); set RACETRACK_PYTHON_DIR\n";
      return kExitBadInput;
    }
    const char* old = std::getenv("PYTHONPATH");
    const std::string path = package->string() + (old && *old ? ":" + std::string(old) : "");
    setenv("PYTHONPATH", path.c_str(), 1);
    setenv("RACETRACK_TORCH", "1", 1);
    if (args.torch_stacks) setenv("RACETRACK_TORCH_STACKS", "1", 1);
  }
  if (!args.values.empty()) {
    if (!args.torch && !args.torch_stacks) {
      std::cerr << "racetrack capture: --values needs --torch (racetrack_torch records them)\n";
      return kExitBadInput;
    }
    if (fs::absolute(args.values) == fs::absolute(output)) {
      std::cerr << "racetrack capture: --values " << args.values << " is the trace's own path\n";
      return kExitBadInput;
    }
    setenv("RACETRACK_TORCH_VALUES", fs::absolute(args.values).c_str(), 1);
  }

  const int status = run_command(args.command);

  const std::vector<std::string> traces = read_lines(index);
  fs::remove(index, ec);
  if (traces.empty())
    std::cerr << "racetrack capture: no trace was written (the command never initialised "
                 "CUDA, another CUPTI tool held it, or it died before the first flush"
              << (fs::exists(output) ? "; a partial trace is at " + output.string() : "") << ")\n";
  for (const std::string& path : traces) {
    TraceStats stats;
    Status read = gather_stats(path, stats);
    std::cerr << "racetrack capture: " << path << ": " << counts_line(stats);
    if (!read) std::cerr << "; readable up to the error: " << read.error().describe();
    std::cerr << "\n";
  }
  if (!args.values.empty()) attach_values(fs::absolute(args.values).string(), traces);
  return status;
}

}  // namespace

void add_capture(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "capture", "Run a CUDA or PyTorch program and record what it asks the GPU to do (CUPTI)");
  cmd->footer(
      "The command's exit status is preserved. Each CUDA process writes its own trace: "
      "OUT, or OUT with .rankN (torchrun) or .PID inserted when several processes share it. "
      "Without the launcher: CUDA_INJECTION64_PATH=libracetrack_capture.so "
      "RACETRACK_CAPTURE_OUTPUT=trace-%p.rtrace (docs/capture.md).");
  auto args = std::make_shared<CaptureArgs>();
  cmd->add_option("-o,--output", args->output, "trace file to write (default capture.rtrace)");
  cmd->add_flag("--no-nvtx", args->no_nvtx, "ignore NVTX ranges and racetrack annotations");
  cmd->add_flag("--torch", args->torch,
                "PyTorch programs: tensor extents, operator read/write modes, host accesses");
  cmd->add_flag("--torch-stacks", args->torch_stacks,
                "with --torch, the Python stack of every operator (expensive)");
  cmd->add_option("--values", args->values,
                  "with --torch, write a digest of every operator's outputs and every parameter gradient to "
                  "this file (%p: the process id), for `racetrack diff` (docs/diff.md)");
  cmd->add_flag("--no-code", args->no_code,
                "leave the GPU code (module images) out of the trace; their sha256 and names stay");
  cmd->add_option("--max-module-bytes", args->max_module_bytes,
                  "module images stored in all (default 256M); later ones are left out with a warning");
  cmd->add_option("--library", args->library, "the injection library to use");
  cmd->add_option("COMMAND", args->command, "the program and its arguments")->required();
  cmd->prefix_command();  // everything after the command goes to it
  cmd->callback([args, &exit_code] { exit_code = capture(*args); });
}

}  // namespace racetrack::cli
