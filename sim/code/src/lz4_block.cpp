// LZ4 block decompression (the format of lz4's LZ4_decompress_safe):
// sequences of a token (literal length << 4 | match length - 4), literals,
// a 16-bit match offset and an extended match length. Every read and copy
// is bounds-checked, so a corrupt entry is an error, never an overrun.
#include <algorithm>

#include "racetrack/code/fatbin.h"

namespace racetrack::code {
namespace {

bool read_length(Bytes in, size_t& at, size_t& length) {
  for (;;) {
    if (at >= in.size()) return false;
    const uint8_t b = in[at++];
    length += b;
    if (b != 255) return true;
  }
}

}  // namespace

Status lz4_decompress_block(Bytes in, std::vector<uint8_t>& out) {
  const size_t capacity = out.size();
  size_t at = 0, written = 0;
  while (at < in.size()) {
    const uint8_t token = in[at++];
    size_t literals = token >> 4;
    if (literals == 15 && !read_length(in, at, literals))
      return make_error("LZ4: truncated literal length", at);
    if (literals > in.size() - at || literals > capacity - written)
      return make_error("LZ4: literals run past the block", at);
    std::copy_n(in.begin() + static_cast<std::ptrdiff_t>(at), literals,
                out.begin() + static_cast<std::ptrdiff_t>(written));
    at += literals;
    written += literals;
    if (at == in.size()) break;  // the last sequence has no match
    if (in.size() - at < 2) return make_error("LZ4: truncated match offset", at);
    const size_t offset = in[at] | (size_t{in[at + 1]} << 8);
    at += 2;
    size_t match = token & 15;
    if (match == 15 && !read_length(in, at, match)) return make_error("LZ4: truncated match length", at);
    match += 4;
    if (offset == 0 || offset > written)
      return make_error("LZ4: match offset " + std::to_string(offset) + " points before the output", at);
    if (match > capacity - written) return make_error("LZ4: match runs past the stated size", at);
    for (size_t i = 0; i < match; ++i, ++written) out[written] = out[written - offset];  // may overlap
  }
  if (written != capacity)
    return make_error("LZ4: block gives " + std::to_string(written) + " bytes, the entry says " +
                      std::to_string(capacity));
  return Ok{};
}

}  // namespace racetrack::code
