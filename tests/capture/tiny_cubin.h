// A minimal cubin for tests that need module images without nvcc: a 64-bit
// little-endian ELF with machine EM_CUDA (190) and a symbol table whose
// kernels (STT_FUNC with STO_CUDA_ENTRY) have the given names. `salt` goes
// into an extra section, so two cubins with the same kernels can differ in
// content (and hash).
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace racetrack::capture::testing {

inline std::vector<uint8_t> tiny_cubin(const std::vector<std::string>& kernels, uint8_t salt = 0) {
  std::string strtab(1, '\0');
  std::vector<uint8_t> symtab(24, 0);  // symbol 0 is the null symbol
  for (const std::string& k : kernels) {
    uint8_t sym[24] = {};
    const auto name = static_cast<uint32_t>(strtab.size());
    std::memcpy(sym, &name, 4);
    sym[4] = 0x12;  // STB_GLOBAL << 4 | STT_FUNC
    sym[5] = 0x10;  // STO_CUDA_ENTRY
    symtab.insert(symtab.end(), sym, sym + 24);
    strtab += k + '\0';
  }
  const std::string shstrtab = std::string("\0.shstrtab\0.strtab\0.symtab\0.salt\0", 33);
  const uint32_t shstrtab_names[] = {0, 1, 11, 19, 27};  // null, .shstrtab, .strtab, .symtab, .salt
  std::vector<uint8_t> out(64, 0);
  auto append = [&out](const void* data, size_t size) {
    const uint64_t at = out.size();
    out.insert(out.end(), static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + size);
    return at;
  };
  const uint64_t shstrtab_at = append(shstrtab.data(), shstrtab.size());
  const uint64_t strtab_at = append(strtab.data(), strtab.size());
  while (out.size() % 8 != 0) out.push_back(0);
  const uint64_t symtab_at = append(symtab.data(), symtab.size());
  const uint64_t salt_at = append(&salt, 1);
  while (out.size() % 8 != 0) out.push_back(0);
  struct Section {
    uint32_t type;
    uint64_t offset, size;
    uint32_t link;
  };
  const Section sections[] = {{0, 0, 0, 0},
                              {3, shstrtab_at, shstrtab.size(), 0},
                              {3, strtab_at, strtab.size(), 0},
                              {2, symtab_at, symtab.size(), 2},
                              {1, salt_at, 1, 0}};
  const uint64_t shoff = out.size();
  for (int i = 0; i < 5; ++i) {
    uint8_t header[64] = {};
    std::memcpy(header, &shstrtab_names[i], 4);
    std::memcpy(header + 4, &sections[i].type, 4);
    std::memcpy(header + 24, &sections[i].offset, 8);
    std::memcpy(header + 32, &sections[i].size, 8);
    std::memcpy(header + 40, &sections[i].link, 4);
    if (sections[i].type == 2) header[56] = 24;  // sh_entsize
    append(header, sizeof header);
  }
  const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::memcpy(out.data(), ident, sizeof ident);
  const uint16_t type = 2, machine = 190, ehsize = 64, shentsize = 64, shnum = 5, shstrndx = 1;
  std::memcpy(out.data() + 16, &type, 2);
  std::memcpy(out.data() + 18, &machine, 2);
  std::memcpy(out.data() + 0x28, &shoff, 8);
  std::memcpy(out.data() + 0x34, &ehsize, 2);
  std::memcpy(out.data() + 0x3a, &shentsize, 2);
  std::memcpy(out.data() + 0x3c, &shnum, 2);
  std::memcpy(out.data() + 0x3e, &shstrndx, 2);
  return out;
}

}  // namespace racetrack::capture::testing
