// SHA-256 (FIPS 180-4), for naming GPU code modules by content: a trace
// stores each module once per hash, and analysis results are cached by it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace racetrack {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  std::array<uint8_t, 32> finish();
  // Lower-case hex of the whole input.
  static std::string hex(const void* data, size_t size);

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t length_ = 0;
};

// 64 lower-case hex digits.
bool is_sha256_hex(std::string_view s);

}  // namespace racetrack
