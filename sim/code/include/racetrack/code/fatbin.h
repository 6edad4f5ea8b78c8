// Finding the cubins in a file: a cubin itself, a fatbin container (as
// nvcc --fatbin writes and cuModuleLoadData takes), or a host ELF (shared
// library or executable) whose .nv_fatbin section holds fatbins. Entries
// compressed with LZ4 or zstd are decompressed; PTX entries are counted and
// skipped (only machine code is analysed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "racetrack/code/elf_image.h"

namespace racetrack::code {

enum class InputKind { kCubin, kFatbin, kHostElf };

struct EmbeddedCubin {
  uint32_t arch = 0;         // SM version from the fatbin entry (90 = sm_90), 0 for a bare cubin
  uint64_t file_offset = 0;  // where its entry starts in the file
  std::vector<uint8_t> image;
};

struct CubinSet {
  InputKind kind = InputKind::kCubin;
  // Set before extraction: fatbin entries of other architectures are
  // counted in `skipped` and neither decompressed nor kept.
  std::optional<uint32_t> only_arch;
  uint64_t skipped = 0;
  std::vector<EmbeddedCubin> cubins;
  uint64_t fatbins = 0;      // containers seen
  uint64_t ptx_entries = 0;  // skipped: not machine code
};

inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;

// Any of the three kinds; an error names what the file is not.
Result<CubinSet> find_cubins(Bytes file, std::optional<uint32_t> only_arch = std::nullopt);

// The ELF entries of the fatbin containers laid one after another in
// `bytes` (a .nv_fatbin section or a fatbin file). `base` is the offset of
// `bytes` in its file, for messages and EmbeddedCubin::file_offset.
Status extract_fatbins(Bytes bytes, uint64_t base, CubinSet& out);

// LZ4 block format (no frame), as fatbin entries use; `out` has the
// uncompressed size the entry states.
Status lz4_decompress_block(Bytes in, std::vector<uint8_t>& out);

}  // namespace racetrack::code
