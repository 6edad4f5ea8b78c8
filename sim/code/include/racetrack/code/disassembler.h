// nvdisasm: finding it and running it. racetrack ships no disassembler of
// its own; it uses the CUDA toolkit's, or the copy the `triton` wheel
// bundles. Search order (the first that exists wins):
//   1. $RACETRACK_NVDISASM (an explicit choice beats any search)
//   2. $CUDA_HOME/bin, $CUDA_PATH/bin, /usr/local/cuda/bin, then PATH
//   3. triton/backends/nvidia/bin/ of the python3 on PATH that has triton
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "racetrack/code/elf_image.h"
#include "racetrack/code/sass.h"

namespace racetrack::code {

struct Disassembler {
  std::string path;
  std::string found_by;  // "RACETRACK_NVDISASM", "CUDA_HOME", "PATH", "triton", ...
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
};

// The error lists every place looked at and how to get one.
Result<Disassembler> find_disassembler();

struct DisassembledFunction {
  std::string name;
  uint64_t start = 0;  // offset in its section; instructions are at start + 16 * i
  std::vector<Instruction> instructions;
};

struct Disassembly {
  uint32_t sm = 0;  // e.g. 90, from nvdisasm's "SM" record
  std::vector<DisassembledFunction> functions;
};

// Runs `nvdisasm -json` on a cubin (written to a temporary file).
Result<Disassembly> disassemble(const Disassembler& tool, Bytes cubin);

// Parses nvdisasm's -json output (exposed for tests).
Result<Disassembly> parse_disassembly_json(const std::string& json);

}  // namespace racetrack::code
