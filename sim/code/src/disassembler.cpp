#include "racetrack/code/disassembler.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "racetrack/code/process.h"

namespace racetrack::code {
namespace {

bool executable(const std::string& path) {
  struct stat st;
  return !path.empty() && stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         access(path.c_str(), X_OK) == 0;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// The triton package directory of the first python on PATH that imports it.
std::string triton_bin(std::vector<std::string>& looked) {
  for (const char* python : {"python3", "python"}) {
    std::string interpreter;
    std::stringstream path(env("PATH"));
    std::string dir;
    while (std::getline(path, dir, ':'))
      if (executable(dir + "/" + python)) {
        interpreter = dir + "/" + python;
        break;
      }
    if (interpreter.empty()) continue;
    auto run = run_process({interpreter, "-c", "import os, triton; print(os.path.dirname(triton.__file__))"},
                           std::chrono::seconds(60));
    looked.push_back("triton/backends/nvidia/bin of " + interpreter);
    if (!run || run->exit_code != 0) continue;
    std::string out = run->out;
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out + "/backends/nvidia/bin/nvdisasm";
  }
  return {};
}

}  // namespace

Result<Disassembler> find_disassembler() {
  std::vector<std::string> looked;
  auto found = [](std::string path, std::string by) { return Disassembler{std::move(path), std::move(by)}; };
  if (const std::string explicit_path = env("RACETRACK_NVDISASM"); !explicit_path.empty()) {
    if (executable(explicit_path)) return found(explicit_path, "RACETRACK_NVDISASM");
    return make_error("RACETRACK_NVDISASM is " + explicit_path + ", which is not an executable file");
  }
  looked.push_back("$RACETRACK_NVDISASM (unset)");
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const std::string root = env(var);
    if (root.empty()) continue;
    const std::string candidate = root + "/bin/nvdisasm";
    if (executable(candidate)) return found(candidate, var);
    looked.push_back(candidate);
  }
  if (executable("/usr/local/cuda/bin/nvdisasm"))
    return found("/usr/local/cuda/bin/nvdisasm", "/usr/local/cuda");
  looked.push_back("/usr/local/cuda/bin/nvdisasm");
  std::stringstream path(env("PATH"));
  std::string dir;
  while (std::getline(path, dir, ':'))
    if (!dir.empty() && executable(dir + "/nvdisasm")) return found(dir + "/nvdisasm", "PATH");
  looked.push_back("nvdisasm on PATH");
  if (const std::string bundled = triton_bin(looked); executable(bundled)) return found(bundled, "triton");
  std::string message = "no nvdisasm found to read the kernels' machine code; looked at: ";
  for (size_t i = 0; i < looked.size(); ++i) message += (i ? ", " : "") + looked[i];
  message +=
      ". Install the CUDA toolkit, or `pip install triton` (its wheel bundles nvdisasm), or set "
      "RACETRACK_NVDISASM to an nvdisasm";
  return make_error(message);
}

Result<Disassembly> parse_disassembly_json(const std::string& text) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_array() || doc.size() < 2 || !doc[1].is_array())
    return make_error("nvdisasm -json printed something that is not its JSON layout ([header, [functions]])");
  Disassembly out;
  const auto& header = doc[0];
  if (header.is_object() && header.contains("SM")) {
    const auto& v = header["SM"]["version"];
    if (v.is_object()) out.sm = v.value("major", 0u) * 10 + v.value("minor", 0u);
  }
  for (const auto& f : doc[1]) {
    if (!f.is_object()) continue;
    DisassembledFunction fn;
    fn.name = f.value("function-name", std::string());
    fn.start = f.value("start", uint64_t{0});
    const auto found = f.find("sass-instructions");
    if (found == f.end() || !found->is_array()) continue;
    uint64_t address = fn.start;
    for (const auto& i : *found) {
      if (!i.is_object()) continue;
      const std::string opcode = i.value("opcode", std::string());
      Instruction ins = parse_instruction(address, i.value("predicate", std::string()), opcode,
                                          i.value("operands", std::string()));
      if (const auto attrs = i.find("other-attributes"); attrs != i.end() && attrs->is_object())
        ins.control_flow = attrs->contains("control-flow");
      fn.instructions.push_back(std::move(ins));
      address += 16;  // every instruction is 16 bytes from sm_70 on
    }
    out.functions.push_back(std::move(fn));
  }
  return out;
}

Result<Disassembly> disassemble(const Disassembler& tool, Bytes cubin) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string name = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/racetrack-cubin-XXXXXX";
  const int fd = mkstemp(name.data());
  if (fd < 0) return make_error("cannot create a temporary file for nvdisasm in " + name);
  struct Remove {
    std::string path;
    ~Remove() { unlink(path.c_str()); }
  } remove{name};
  size_t written = 0;
  while (written < cubin.size()) {
    const ssize_t n = write(fd, cubin.data() + written, cubin.size() - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  close(fd);
  if (written != cubin.size()) return make_error("cannot write the cubin to " + name);
  auto run = run_process({tool.path, "-json", name}, tool.timeout);
  if (!run) return run.error();
  if (run->timed_out)
    return make_error(tool.path + " ran past " + std::to_string(tool.timeout.count() / 1000) +
                      " s and was stopped");
  if (run->exit_code != 0) {
    std::string err = run->err.substr(0, 400);
    while (!err.empty() && err.back() == '\n') err.pop_back();
    return make_error(tool.path + " failed (exit " + std::to_string(run->exit_code) + "): " + err);
  }
  return parse_disassembly_json(run->out);
}

}  // namespace racetrack::code
