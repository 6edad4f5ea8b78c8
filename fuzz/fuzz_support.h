// Shared by the fuzz targets: fuzz inputs as chunks, and scratch files for
// the entry points that read traces from disk (as the CLI does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "racetrack/traces/container.h"

namespace racetrack::fuzz {

// The input as a serialized Chunk (the whole trace), or nothing when it
// does not parse.
std::optional<v1::Chunk> parse_chunk(const uint8_t* data, size_t size);

// A file of its own in the temporary directory, removed when it goes.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& extension);
  ~ScratchFile();
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::string& path() const { return path_; }
  // Writes `bytes` as the whole file.
  void write(const uint8_t* data, size_t size) const;

 private:
  std::string path_;
};

// `chunk` written as a binary trace (as it is: invalid traces too, for the
// readers to refuse).
void write_trace(const v1::Chunk& chunk, const std::string& path);

// The lowest and highest seq of the trace's ops (0, 0 without ops).
std::pair<uint64_t, uint64_t> seq_span(const v1::Chunk& chunk);

}  // namespace racetrack::fuzz
