// The kernels of a cubin and where their parameters live, from the ELF:
// a kernel is a function symbol marked STO_CUDA_ENTRY; its `.nv.info.NAME`
// section holds EIATTR_PARAM_CBANK (where the parameter buffer lies in
// constant bank 0: low 16 bits offset, high 16 bits size) and one
// EIATTR_KPARAM_INFO per parameter (ordinal, offset, size).
#pragma once

#include <optional>

#include "racetrack/code/elf_image.h"

namespace racetrack::code {

struct KernelParam {
  uint32_t ordinal = 0;
  uint32_t offset = 0;  // in the parameter buffer
  uint32_t size = 0;
};

struct KernelLayout {
  std::string name;
  // Absent when the cubin has no EIATTR_PARAM_CBANK for the kernel: its
  // parameters cannot be told from other constants, nothing is analysed.
  std::optional<uint32_t> param_base;  // offset of the buffer in c[0x0]
  uint32_t param_size = 0;             // bytes
  std::vector<KernelParam> params;     // by ordinal
  uint32_t words() const { return (param_size + 7) / 8; }
};

std::vector<KernelLayout> kernel_layouts(const ElfImage& cubin);

// Parses one .nv.info.NAME section into `layout` (exposed for tests).
Status parse_nv_info(Bytes section, KernelLayout& layout);

}  // namespace racetrack::code
