// The slot of a small direct-mapped cache for a memory address. A
// multiplicative hash: pointers are aligned to large powers of two, so
// their low bits say nothing and shifts and xors of them leave most slots
// unused.
#pragma once

#include <cstddef>
#include <cstdint>

namespace racetrack::race {

inline size_t address_slot(uint64_t at, uint64_t salt, size_t slots) {
  return static_cast<size_t>(((at ^ salt << 48) * 0x9E3779B97F4A7C15ull) >> 40) % slots;
}

}  // namespace racetrack::race
