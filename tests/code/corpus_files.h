// What the code_corpus_test sources share: the nvdisasm CMake found, and
// reading a corpus file whole.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace racetrack::code::test {

// Runs without RACETRACK_NVDISASM use the nvdisasm CMake found.
inline const bool kNvdisasmChosen = [] {
  if (*RACETRACK_CODE_NVDISASM) setenv("RACETRACK_NVDISASM", RACETRACK_CODE_NVDISASM, 0);
  return true;
}();

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace racetrack::code::test
