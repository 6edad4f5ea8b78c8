// No frame makes a reader allocate more than its bytes justify (issue #15):
// zstd frames that inflate past their declared size, declare sizes they do
// not hold, ask for huge windows, or hold chunks that would decode into
// gigabytes are refused with a message, and the refusal itself costs
// little memory (peak RSS is measured around it; ctest runs each test in
// its own process).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <zstd.h>

#include "racetrack/traces/trace_io.h"
#include "racetrack/traces/validate.h"
#include "test_support.h"

namespace racetrack {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

int64_t peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

// A zstd stream of `copies` times `block`, compressed without a content
// size in its frame header (streaming), as a hostile writer can; memory
// stays that of one block.
std::string zstd_stream(const std::string& block, size_t copies = 1, int window_log = 0) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  if (window_log) ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, window_log);
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
  std::string out;
  std::string buffer(ZSTD_CStreamOutSize(), '\0');
  auto pump = [&](const std::string& bytes, ZSTD_EndDirective mode) {
    ZSTD_inBuffer in{bytes.data(), bytes.size(), 0};
    for (;;) {
      ZSTD_outBuffer o{buffer.data(), buffer.size(), 0};
      const size_t left = ZSTD_compressStream2(c, &o, &in, mode);
      out.append(buffer.data(), o.pos);
      if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) break;
    }
  };
  for (size_t i = 0; i < copies; ++i) pump(block, ZSTD_e_continue);
  pump("", ZSTD_e_end);
  ZSTD_freeCCtx(c);
  return out;
}

class ContainerLimits : public ::testing::Test {
 protected:
  // The file: a valid first chunk, then one zstd frame of `stored`
  // declaring `raw_size`.
  std::string write(const std::string& stored, uint32_t raw_size) {
    v1::Chunk first;
    first.mutable_header()->set_format_version(kFormatVersion);
    std::string bytes(kMagic, sizeof kMagic);
    bytes += std::string("\x01\x00", 2);
    bytes += testing::frame_of(first);
    at_ = bytes.size();
    bytes += testing::frame({.stored = stored, .codec = 1, .raw_size = raw_size});
    testing::write_bytes(path_, bytes);
    return path_;
  }
  // Reads the file as every command does; returns the error.
  std::string read_error() {
    auto source = TraceSource::open_unchecked(path_);
    EXPECT_TRUE(source);
    for (;;) {
      auto chunk = source->read();
      if (!chunk) {
        EXPECT_EQ(chunk.error().offset, at_);
        return chunk.error().message;
      }
      if (!*chunk) return "";
    }
  }

  TempDir dir_;
  std::string path_ = dir_.path("bomb.rtrace");
  uint64_t at_ = 0;
};

TEST_F(ContainerLimits, DeclaredSizeOverTheLimitIsRefused) {
  write(zstd_stream("x"), kMaxFrameBytes + 1);
  EXPECT_THAT(read_error(), HasSubstr("are impossible (a chunk holds at most 256 MiB)"));
}

// 1 GiB of zeros in a few tens of KiB, declared as 1 MiB: decoding stops at
// the declared size.
TEST_F(ContainerLimits, FrameHoldingMoreThanDeclaredStopsThere) {
  write(zstd_stream(std::string(1 << 20, '\0'), 1024), 1 << 20);
  const int64_t before = peak_rss_mib();
  EXPECT_THAT(read_error(), HasSubstr("holds more than the 1048576 bytes its frame header declares"));
  EXPECT_LT(peak_rss_mib() - before, 64);
}

// A frame of a few bytes without a content size claiming 256 MiB: the
// output buffer grows with what the frame holds, so nothing is allocated.
TEST_F(ContainerLimits, FrameClaimingWhatItDoesNotHoldAllocatesNothing) {
  const std::string stored = zstd_stream("");
  EXPECT_LT(stored.size(), 64u);
  write(stored, kMaxFrameBytes);
  const int64_t before = peak_rss_mib();
  EXPECT_THAT(read_error(), HasSubstr("holds 0 bytes, its frame header declares 268435456"));
  EXPECT_LT(peak_rss_mib() - before, 16);
}

TEST_F(ContainerLimits, HugeZstdWindowIsRefused) {
  write(zstd_stream(std::string(1000, 'a'), 1, 27), 1000);
  EXPECT_THAT(read_error(), HasSubstr("needs a window larger than 2^25 bytes"));
}

// 12 MiB of empty ops (two bytes each) would be 6 million Op objects, ~700
// MB; one 12 MiB string is 12 MiB.
TEST_F(ContainerLimits, ChunkThatWouldDecodeIntoGigabytesIsRefused) {
  std::string empty_ops(12 << 20, '\0');  // field 7 (ops), length 0, 6 Mi times
  for (size_t i = 0; i < empty_ops.size(); i += 2) empty_ops[i] = '\x3a';
  write(zstd_stream(empty_ops), static_cast<uint32_t>(empty_ops.size()));
  EXPECT_THAT(read_error(), HasSubstr("would take more than 512 MiB once decoded"));

  v1::Chunk one_string;
  one_string.add_strings(std::string(12 << 20, 's'));
  const std::string wire = one_string.SerializeAsString();
  write(zstd_stream(wire), static_cast<uint32_t>(wire.size()));
  EXPECT_EQ(read_error(), "");
}

}  // namespace
}  // namespace racetrack
