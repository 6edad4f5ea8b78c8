#include "racetrack/code/kernel_layout.h"

#include <algorithm>
#include <cstring>

namespace racetrack::code {
namespace {

// EIATTR formats and the attributes read here (cuobjdump -elf names).
constexpr uint8_t kFormatNone = 1, kFormatByte = 2, kFormatHalf = 3, kFormatSized = 4;
constexpr uint8_t kAttrParamCbank = 0x0a, kAttrKparamInfo = 0x17;
constexpr uint8_t kStoCudaEntry = 0x10;
constexpr uint8_t kSttFunc = 2;

uint32_t u32(Bytes b, size_t at) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}
uint16_t u16(Bytes b, size_t at) {
  uint16_t v;
  std::memcpy(&v, b.data() + at, 2);
  return v;
}

}  // namespace

Status parse_nv_info(Bytes s, KernelLayout& layout) {
  size_t at = 0;
  while (at + 2 <= s.size()) {
    const uint8_t format = s[at], attr = s[at + 1];
    at += 2;
    if (format == kFormatNone || format == kFormatByte || format == kFormatHalf) {
      at += 2;  // all three carry a 16-bit value slot (ptxas writes zeros for "none")
      continue;
    }
    if (format != kFormatSized || at + 2 > s.size())
      return make_error(
          "nv.info: attribute 0x" + std::to_string(attr) + " has unknown format " + std::to_string(format),
          at);
    const uint16_t size = u16(s, at);
    at += 2;
    if (size > s.size() - at) return make_error("nv.info: attribute runs past its section", at);
    const Bytes value = s.subspan(at, size);
    if (attr == kAttrParamCbank && size >= 8) {
      const uint32_t packed = u32(value, 4);
      layout.param_base = packed & 0xffff;
      layout.param_size = packed >> 16;
    } else if (attr == kAttrKparamInfo && size >= 12) {
      KernelParam p;
      p.ordinal = u16(value, 4);
      p.offset = u16(value, 6);
      p.size = (u32(value, 8) >> 18) & 0x3fff;
      layout.params.push_back(p);
    }
    at += size;
  }
  std::sort(layout.params.begin(), layout.params.end(),
            [](const KernelParam& a, const KernelParam& b) { return a.ordinal < b.ordinal; });
  return Ok{};
}

std::vector<KernelLayout> kernel_layouts(const ElfImage& cubin) {
  std::vector<KernelLayout> out;
  for (const ElfSymbol& sym : cubin.symbols()) {
    if (sym.type() != kSttFunc || !(sym.other & kStoCudaEntry)) continue;
    KernelLayout layout;
    layout.name = sym.name;
    if (const ElfSection* info = cubin.find_section(".nv.info." + sym.name)) {
      if (!parse_nv_info(cubin.data(*info), layout)) layout.param_base.reset();
    }
    out.push_back(std::move(layout));
  }
  return out;
}

}  // namespace racetrack::code
