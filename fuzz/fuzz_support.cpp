#include "fuzz_support.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "racetrack/traces/trace_io.h"

namespace racetrack::fuzz {

std::optional<v1::Chunk> parse_chunk(const uint8_t* data, size_t size) {
  v1::Chunk chunk;
  if (!chunk.ParseFromArray(data, static_cast<int>(size))) return std::nullopt;
  return chunk;
}

ScratchFile::ScratchFile(const std::string& extension) {
  static uint64_t counter = 0;
  path_ = (std::filesystem::temp_directory_path() /
           ("racetrack-fuzz-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + extension))
              .string();
}

ScratchFile::~ScratchFile() {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

void ScratchFile::write(const uint8_t* data, size_t size) const {
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

void write_trace(const v1::Chunk& chunk, const std::string& path) {
  if (auto saved = save_trace(chunk, path, {.compress = false}); !saved)
    std::filesystem::remove(path);  // e.g. a chunk over the size limit: the readers then find no file
}

std::pair<uint64_t, uint64_t> seq_span(const v1::Chunk& chunk) {
  if (chunk.ops_size() == 0) return {0, 0};
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const v1::Op& op : chunk.ops()) {
    lo = std::min(lo, op.seq());
    hi = std::max(hi, op.seq());
  }
  return {lo, hi};
}

}  // namespace racetrack::fuzz
