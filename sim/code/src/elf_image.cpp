#include "racetrack/code/elf_image.h"

#include <cstring>

namespace racetrack::code {
namespace {

template <typename T>
bool read_at(Bytes bytes, uint64_t offset, T& out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

bool in_bounds(Bytes bytes, uint64_t offset, uint64_t size) {
  return offset <= bytes.size() && size <= bytes.size() - offset;
}

std::string string_at(Bytes table, uint64_t offset) {
  if (offset >= table.size()) return {};
  const auto* begin = reinterpret_cast<const char*>(table.data() + offset);
  const void* nul = std::memchr(begin, 0, table.size() - offset);
  return nul ? std::string(begin, static_cast<const char*>(nul)) : std::string(begin, table.size() - offset);
}

}  // namespace

bool ElfImage::looks_like_elf(Bytes bytes) {
  return bytes.size() >= 4 && bytes[0] == 0x7f && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F';
}

const ElfSection* ElfImage::find_section(std::string_view name) const {
  for (const auto& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

Bytes ElfImage::data(const ElfSection& section) const {
  if (section.type == kSectionNoBits) return {};
  return bytes_.subspan(section.offset, section.size);  // checked in parse()
}

Result<ElfImage> ElfImage::parse(Bytes bytes) {
  if (!looks_like_elf(bytes)) return make_error("not an ELF file (no \\x7fELF magic)", 0);
  if (bytes.size() < 64) return make_error("ELF header is truncated", 0);
  if (bytes[4] != 2) return make_error("only 64-bit ELF files are supported", 4);
  if (bytes[5] != 1) return make_error("only little-endian ELF files are supported", 5);
  ElfImage image;
  image.bytes_ = bytes;
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  read_at(bytes, 18, image.machine_);
  read_at(bytes, 0x28, shoff);
  read_at(bytes, 0x3a, shentsize);
  read_at(bytes, 0x3c, shnum);
  read_at(bytes, 0x3e, shstrndx);
  if (shnum == 0) return image;
  if (shentsize < 64)
    return make_error("section header entries are " + std::to_string(shentsize) + " bytes", 0x3a);
  if (!in_bounds(bytes, shoff, uint64_t{shnum} * shentsize))
    return make_error("section headers lie outside the file", 0x28);

  struct Raw {
    uint32_t name;
    ElfSection section;
  };
  std::vector<Raw> raw(shnum);
  for (uint16_t i = 0; i < shnum; ++i) {
    const uint64_t at = shoff + uint64_t{i} * shentsize;
    ElfSection& s = raw[i].section;
    read_at(bytes, at, raw[i].name);
    read_at(bytes, at + 4, s.type);
    read_at(bytes, at + 8, s.flags);
    read_at(bytes, at + 24, s.offset);
    read_at(bytes, at + 32, s.size);
    read_at(bytes, at + 40, s.link);
    read_at(bytes, at + 44, s.info);
    if (s.type != kSectionNoBits && s.type != 0 && !in_bounds(bytes, s.offset, s.size))
      return make_error("section " + std::to_string(i) + " (" + std::to_string(s.size) + " bytes at " +
                            std::to_string(s.offset) + ") lies outside the file",
                        at);
  }
  Bytes names;
  if (shstrndx < shnum && raw[shstrndx].section.type != kSectionNoBits)
    names = bytes.subspan(raw[shstrndx].section.offset, raw[shstrndx].section.size);
  for (auto& r : raw) {
    r.section.name = string_at(names, r.name);
    image.sections_.push_back(std::move(r.section));
  }

  for (const ElfSection& s : image.sections_) {
    if (s.type != 2 || s.link >= image.sections_.size()) continue;  // SHT_SYMTAB
    const Bytes table = image.data(s);
    const Bytes strings = image.data(image.sections_[s.link]);
    for (uint64_t at = 0; at + 24 <= table.size(); at += 24) {
      uint32_t name = 0;
      ElfSymbol sym;
      read_at(table, at, name);
      read_at(table, at + 4, sym.info);
      read_at(table, at + 5, sym.other);
      read_at(table, at + 6, sym.section);
      read_at(table, at + 8, sym.value);
      read_at(table, at + 16, sym.size);
      sym.name = string_at(strings, name);
      image.symbols_.push_back(std::move(sym));
    }
  }
  return image;
}

}  // namespace racetrack::code
