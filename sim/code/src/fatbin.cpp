// The fatbin container (no public specification; the layout below is what
// nvcc and NVIDIA's libraries write, checked against cuobjdump):
//   header: u32 magic 0xBA55ED50, u16 version, u16 header size, u64 size of the entries
//   entry:  u16 kind (1 PTX, 2 ELF), u16 version, u32 entry header size,
//           u64 payload size (padded), u32 compressed size, u32 -, u16 -, u16 -,
//           u32 SM arch, u32 name offset, u32 name size, u64 flags,
//           u64 -, u64 uncompressed size; then the payload.
//   flags:  0x2000 LZ4-compressed payload, 0x8000 zstd-compressed payload.
#include "racetrack/code/fatbin.h"

#include <zstd.h>

#include <cstring>

namespace racetrack::code {
namespace {

constexpr uint64_t kFlagLz4 = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;
constexpr uint16_t kKindPtx = 1;
constexpr uint16_t kKindElf = 2;
constexpr uint64_t kMaxImage = uint64_t{1} << 31;  // no cubin is 2 GiB; a bigger size is corruption

template <typename T>
T load(Bytes bytes, uint64_t at) {
  T v{};
  std::memcpy(&v, bytes.data() + at, sizeof(T));
  return v;
}

Status decompress(Bytes payload, uint64_t flags, uint64_t raw_size, uint64_t at,
                  std::vector<uint8_t>& image) {
  if (raw_size == 0 || raw_size > kMaxImage)
    return make_error("fatbin entry states an uncompressed size of " + std::to_string(raw_size), at);
  image.assign(raw_size, 0);
  if (flags & kFlagZstd) {
    const size_t got = ZSTD_decompress(image.data(), image.size(), payload.data(), payload.size());
    if (ZSTD_isError(got))
      return make_error(std::string("fatbin entry: zstd: ") + ZSTD_getErrorName(got), at);
    if (got != raw_size)
      return make_error("fatbin entry: zstd gives " + std::to_string(got) + " bytes, the entry says " +
                            std::to_string(raw_size),
                        at);
    return Ok{};
  }
  auto status = lz4_decompress_block(payload, image);
  if (!status) status.error().offset = at;
  return status;
}

}  // namespace

Status extract_fatbins(Bytes bytes, uint64_t base, CubinSet& out) {
  uint64_t at = 0;
  while (at + 16 <= bytes.size()) {
    const uint32_t magic = load<uint32_t>(bytes, at);
    if (magic == 0) {  // padding between containers
      at += 8;
      continue;
    }
    if (magic != kFatbinMagic)
      return make_error(
          "expected a fatbin header (magic 0xba55ed50), found 0x" +
              [&] {
                char buf[16];
                std::snprintf(buf, sizeof buf, "%08x", magic);
                return std::string(buf);
              }(),
          base + at);
    const uint16_t header_size = load<uint16_t>(bytes, at + 6);
    const uint64_t entries_size = load<uint64_t>(bytes, at + 8);
    if (header_size < 16 || entries_size > bytes.size() - at ||
        header_size > bytes.size() - at - entries_size)
      return make_error("fatbin container runs past the end of its section (" + std::to_string(entries_size) +
                            " bytes of entries)",
                        base + at);
    ++out.fatbins;
    uint64_t entry = at + header_size;
    const uint64_t end = entry + entries_size;
    while (entry < end) {
      if (end - entry < 64) return make_error("fatbin entry header is truncated", base + entry);
      const uint16_t kind = load<uint16_t>(bytes, entry);
      const uint32_t entry_header = load<uint32_t>(bytes, entry + 4);
      const uint64_t padded = load<uint64_t>(bytes, entry + 8);
      const uint32_t compressed = load<uint32_t>(bytes, entry + 16);
      const uint32_t arch = load<uint32_t>(bytes, entry + 28);
      const uint64_t flags = load<uint64_t>(bytes, entry + 40);
      const uint64_t raw_size = load<uint64_t>(bytes, entry + 56);
      if (entry_header < 64 || entry_header > end - entry || padded > end - entry - entry_header)
        return make_error("fatbin entry (header " + std::to_string(entry_header) + " bytes, payload " +
                              std::to_string(padded) + ") runs past its container",
                          base + entry);
      const Bytes payload = bytes.subspan(entry + entry_header, padded);
      if (kind == kKindPtx) {
        ++out.ptx_entries;
      } else if (kind == kKindElf && out.only_arch && arch != *out.only_arch) {
        ++out.skipped;
      } else if (kind == kKindElf) {
        EmbeddedCubin cubin;
        cubin.arch = arch;
        cubin.file_offset = base + entry;
        if (flags & (kFlagLz4 | kFlagZstd)) {
          if (compressed > payload.size())
            return make_error("fatbin entry: compressed size " + std::to_string(compressed) +
                                  " exceeds its payload of " + std::to_string(payload.size()),
                              base + entry);
          if (auto s = decompress(payload.first(compressed), flags, raw_size, base + entry, cubin.image); !s)
            return s.error();
        } else {
          cubin.image.assign(payload.begin(), payload.end());
        }
        out.cubins.push_back(std::move(cubin));
      }
      entry += entry_header + padded;
    }
    at = end;
  }
  return Ok{};
}

Result<CubinSet> find_cubins(Bytes file, std::optional<uint32_t> only_arch) {
  CubinSet set;
  set.only_arch = only_arch;
  if (file.size() >= 4 && load<uint32_t>(file, 0) == kFatbinMagic) {
    set.kind = InputKind::kFatbin;
    if (auto s = extract_fatbins(file, 0, set); !s) return s.error();
    return set;
  }
  if (!ElfImage::looks_like_elf(file))
    return make_error(
        "neither an ELF file (cubin, shared library) nor a fatbin (no \\x7fELF or 0xba55ed50 magic)", 0);
  auto elf = ElfImage::parse(file);
  if (!elf) return elf.error();
  if (elf->is_cuda()) {
    set.kind = InputKind::kCubin;
    set.cubins.push_back(EmbeddedCubin{0, 0, std::vector<uint8_t>(file.begin(), file.end())});
    return set;
  }
  set.kind = InputKind::kHostElf;
  bool found = false;
  for (const ElfSection& s : elf->sections()) {
    if (s.name != ".nv_fatbin" && s.name != "__nv_relfatbin") continue;
    found = true;
    if (auto status = extract_fatbins(elf->data(s), s.offset, set); !status) return status.error();
  }
  if (!found) return make_error("a host ELF file without a .nv_fatbin section: it holds no GPU code", 0);
  return set;
}

}  // namespace racetrack::code
