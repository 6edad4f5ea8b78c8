// The fuzz targets without libFuzzer: replays saved inputs through the same
// code, for the regression tests (tests/fuzz_regressions) in every build. A
// crash, sanitizer report or hang fails the ctest that runs it. Files named
// *.chunk.pbtxt are chunks in text format (readable regressions for the
// analysis targets), given to the target serialized.
//
//   fuzz_replay TARGET FILE_OR_DIR...
#include <google/protobuf/text_format.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "racetrack.pb.h"

#define RACETRACK_FUZZ_TARGET(name) extern "C" int racetrack_fuzz_##name(const uint8_t*, size_t);
#include "fuzz_targets.inc"
#undef RACETRACK_FUZZ_TARGET

namespace {

struct Target {
  const char* name;
  int (*run)(const uint8_t*, size_t);
};

const Target kTargets[] = {
#define RACETRACK_FUZZ_TARGET(name) {#name, racetrack_fuzz_##name},
#include "fuzz_targets.inc"
#undef RACETRACK_FUZZ_TARGET
};

}  // namespace

int main(int argc, char** argv) {
  const Target* target = nullptr;
  for (const Target& t : kTargets)
    if (argc > 1 && std::strcmp(argv[1], t.name) == 0) target = &t;
  if (!target || argc < 3) {
    std::cerr << "usage: fuzz_replay TARGET FILE_OR_DIR...\n";
    return 2;
  }
  std::vector<std::filesystem::path> inputs;
  for (int i = 2; i < argc; ++i) {
    if (std::filesystem::is_directory(argv[i])) {
      for (const auto& entry : std::filesystem::directory_iterator(argv[i]))
        if (entry.is_regular_file() && entry.path().filename().string()[0] != '.')
          inputs.push_back(entry.path());
    } else {
      inputs.emplace_back(argv[i]);
    }
  }
  if (inputs.empty()) {
    std::cerr << "fuzz_replay: no inputs\n";
    return 2;
  }
  for (const auto& path : inputs) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::cerr << path.string() << ": cannot read\n";
      return 2;
    }
    std::string input = bytes;
    if (path.string().ends_with(".chunk.pbtxt")) {
      racetrack::v1::Chunk chunk;
      if (!google::protobuf::TextFormat::ParseFromString(bytes, &chunk)) {
        std::cerr << path.string() << ": not a Chunk in text format\n";
        return 2;
      }
      input = chunk.SerializeAsString();
    }
    std::cout << target->name << ": " << path.filename().string() << " (" << input.size() << " bytes)"
              << std::endl;
    target->run(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  }
  std::cout << inputs.size() << " input(s) replayed\n";
  return 0;
}
