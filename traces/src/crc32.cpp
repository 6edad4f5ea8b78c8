// CRC-32 (IEEE, reflected, as zlib computes it), slicing-by-4 over a table
// built once at start-up; used to detect corrupt chunk frames.
#include <array>
#include <cstdint>
#include <cstring>

#include "racetrack/traces/container.h"

namespace racetrack {
namespace {

using Tables = std::array<std::array<uint32_t, 256>, 4>;

Tables make_tables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i)
    for (int s = 1; s < 4; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
  return t;
}

const Tables kTables = make_tables();

}  // namespace

uint32_t crc32(const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t c = 0xFFFFFFFFu;
  while (size >= 4) {
    uint32_t word;
    std::memcpy(&word, p, 4);  // the container is little-endian only
    c ^= word;
    c = kTables[3][c & 0xFF] ^ kTables[2][(c >> 8) & 0xFF] ^ kTables[1][(c >> 16) & 0xFF] ^
        kTables[0][c >> 24];
    p += 4;
    size -= 4;
  }
  while (size--) c = kTables[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

}  // namespace racetrack
