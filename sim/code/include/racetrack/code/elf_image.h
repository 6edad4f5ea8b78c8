// A small, bounds-checked reader for 64-bit little-endian ELF files: the
// sections and symbols of a CUDA cubin, and the sections of a host shared
// library (where the fatbins live). Every offset is checked against the
// file before it is used; a bad file is an error naming the offset.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "racetrack/traces/result.h"

namespace racetrack::code {

using Bytes = std::span<const uint8_t>;

inline constexpr uint16_t kMachineCuda = 190;  // EM_CUDA
inline constexpr uint32_t kSectionNoBits = 8;  // SHT_NOBITS

struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
};

struct ElfSymbol {
  std::string name;
  uint64_t value = 0;
  uint64_t size = 0;
  uint8_t info = 0;   // binding << 4 | type
  uint8_t other = 0;  // CUDA: STO_CUDA_ENTRY (0x10) marks a kernel
  uint16_t section = 0;
  uint8_t type() const { return info & 0xf; }
};

class ElfImage {
 public:
  static bool looks_like_elf(Bytes bytes);
  // The image must outlive the ElfImage (sections are views into it).
  static Result<ElfImage> parse(Bytes bytes);

  uint16_t machine() const { return machine_; }
  bool is_cuda() const { return machine_ == kMachineCuda; }
  const std::vector<ElfSection>& sections() const { return sections_; }
  const ElfSection* find_section(std::string_view name) const;
  // The section's bytes (empty for NOBITS sections).
  Bytes data(const ElfSection& section) const;
  const std::vector<ElfSymbol>& symbols() const { return symbols_; }

 private:
  Bytes bytes_;
  uint16_t machine_ = 0;
  std::vector<ElfSection> sections_;
  std::vector<ElfSymbol> symbols_;
};

}  // namespace racetrack::code
