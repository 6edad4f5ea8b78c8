// The container's own checks, on frames made by hand: what no writer
// produces but a damaged or foreign file holds. Each is reported as
// "FILE: offset N: ..." with N the offset of the file header field or frame.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "racetrack/traces/trace_io.h"
#include "racetrack/traces/validate.h"
#include "test_support.h"

namespace racetrack {
namespace {

using testing::FrameSpec;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::TempDir;

namespace fs = std::filesystem;

class Container : public ::testing::Test {
 protected:
  // Writes `bytes` and returns validate_file's report on it.
  ValidationReport validate(const std::string& bytes) {
    testing::write_bytes(path_, bytes);
    return validate_file(path_);
  }

  // A good first frame (header and entities, two ops) and where it ends.
  std::string good_start() {
    v1::Chunk first = testing::standard_trace(1);
    while (first.ops_size() > 2) first.mutable_ops()->RemoveLast();
    return testing::file_header() + testing::frame_of(first);
  }

  // The single error of `report`, which must be the read failure at `offset`.
  void expect_read_error(const ValidationReport& report, uint64_t offset, const std::string& what) {
    ASSERT_EQ(report.errors.size(), 1u);
    EXPECT_EQ(report.error_count, 1u);
    EXPECT_EQ(report.errors[0].offset, offset);
    EXPECT_THAT(report.errors[0].describe(),
                StartsWith(path_ + ": offset " + std::to_string(offset) + ": " + what));
  }

  TempDir dir_;
  const std::string path_ = dir_.path("hand.rtrace");
};

TEST_F(Container, WellFormedHandMadeFileIsValid) {
  // The hand-made frames follow the documented layout, so the negative tests
  // below differ from a valid file in one field only.
  const ValidationReport report = validate(good_start());
  EXPECT_EQ(report.error_count, 0u) << report.errors[0].describe();
  EXPECT_EQ(report.chunks, 1u);
  EXPECT_EQ(report.ops, 2u);
}

TEST_F(Container, WrongMagic) {
  std::string bytes = good_start();
  bytes[0] = 'X';
  expect_read_error(validate(bytes), 0, "not a racetrack trace: wrong magic");
  EXPECT_FALSE(is_binary_trace(path_));
}

TEST_F(Container, UnsupportedVersion) {
  const std::string bytes = testing::file_header(2) + good_start().substr(kFileHeaderSize);
  expect_read_error(validate(bytes), 6, "unsupported format version 2 (this build reads 1)");
  EXPECT_TRUE(is_binary_trace(path_));  // the magic is right
}

TEST_F(Container, TooShortForAFileHeader) {
  expect_read_error(validate("RTRAC"), 0, "too short to be a racetrack trace (5 bytes)");
  expect_read_error(validate(""), 0, "too short to be a racetrack trace (0 bytes)");
}

TEST_F(Container, TruncatedFrameHeader) {
  const std::string start = good_start();
  const std::string second = testing::frame({.stored = std::string("\x12\x01x", 3)});
  const ValidationReport report = validate(start + second.substr(0, 10));
  expect_read_error(report, start.size(), "truncated chunk: 10 bytes left, a frame header needs 16");
  EXPECT_EQ(report.chunks, 1u);
}

TEST_F(Container, TruncatedStoredBytes) {
  const std::string start = good_start();
  v1::Chunk more;
  more.add_strings("a string of some length");
  const std::string second = testing::frame_of(more);
  const size_t stored = second.size() - kFrameHeaderSize;
  const ValidationReport report = validate(start + second.substr(0, second.size() - 3));
  expect_read_error(report, start.size(),
                    "truncated chunk: frame needs " + std::to_string(stored) + " bytes, file has " +
                        std::to_string(stored - 3));
}

TEST_F(Container, ChecksumMismatch) {
  const std::string start = good_start();
  const std::string payload("\x12\x01x", 3);  // strings: "x"
  const uint32_t wrong = racetrack::crc32(payload.data(), payload.size()) ^ 1;
  expect_read_error(validate(start + testing::frame({.stored = payload, .crc = wrong})), start.size(),
                    "corrupt chunk: checksum mismatch");
}

TEST_F(Container, UndecodableChunk) {
  // A correct frame and checksum around bytes that are not a Chunk: field 1
  // (the header) claims 127 bytes that are not there.
  const std::string start = good_start();
  expect_read_error(validate(start + testing::frame({.stored = std::string("\x0a\x7f\x01\x02", 4)})),
                    start.size(), "corrupt chunk: protobuf cannot decode it");
}

TEST_F(Container, UndecodableZstd) {
  const std::string start = good_start();
  expect_read_error(
      validate(start + testing::frame({.stored = "not zstd at all", .codec = 1, .raw_size = 100})),
      start.size(), "corrupt chunk: zstd cannot decompress it");
}

TEST_F(Container, UnknownCodec) {
  const std::string start = good_start();
  expect_read_error(validate(start + testing::frame({.stored = "", .codec = 7})), start.size(),
                    "corrupt chunk: unknown codec 7");
}

TEST_F(Container, ReservedBytesMustBeZero) {
  const std::string start = good_start();
  expect_read_error(validate(start + testing::frame({.stored = "", .reserved = 1})), start.size(),
                    "corrupt chunk: reserved frame bytes are not zero");
}

TEST_F(Container, ImpossibleFrameSizeIsNotAllocated) {
  const std::string start = good_start();
  expect_read_error(validate(start + testing::frame({.stored = "", .stored_size = 0xF0000000u})),
                    start.size(), "corrupt chunk: frame sizes 4026531840 / 0 are impossible");
  expect_read_error(validate(start + testing::frame({.stored = "", .raw_size = kMaxFrameBytes + 1})),
                    start.size(), "corrupt chunk: frame size");
}

TEST_F(Container, RawAndStoredSizesMustAgreeWithoutCompression) {
  const std::string start = good_start();
  expect_read_error(validate(start + testing::frame({.stored = std::string("\x12\x01x", 3), .raw_size = 4})),
                    start.size(), "corrupt chunk: raw and stored sizes differ without compression");
}

TEST_F(Container, EmptyFrameIsAnEmptyChunk) {
  // Zero stored bytes decode as an empty Chunk: legal, if pointless.
  const std::string start = good_start();
  const ValidationReport report = validate(start + testing::frame({.stored = ""}));
  EXPECT_EQ(report.error_count, 0u);
  EXPECT_EQ(report.chunks, 2u);
}

TEST_F(Container, ReaderStopsAtTheBadFrame) {
  // After the good chunk, next() fails and offset() names the bad frame.
  const std::string start = good_start();
  testing::write_bytes(path_, start + testing::frame({.stored = "", .codec = 9}));
  auto reader = ChunkReader::open(path_);
  ASSERT_TRUE(reader.ok());
  v1::Chunk chunk;
  auto first = reader->next(chunk);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(*first);
  EXPECT_EQ(chunk.ops_size(), 2);
  auto second = reader->next(chunk);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().offset, start.size());
  EXPECT_EQ(reader->offset(), start.size());
}

TEST_F(Container, MissingFileNamesThePath) {
  const ValidationReport report = validate_file(dir_.path("nope.rtrace"));
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_THAT(report.errors[0].describe(), StartsWith(dir_.path("nope.rtrace") + ": cannot open: "));
  EXPECT_THAT(report.errors[0].message, HasSubstr("No such file"));
  EXPECT_FALSE(report.errors[0].offset.has_value());
}

TEST_F(Container, DirectoryIsReportedAsSuch) {
  // Not "too short (9223372036854775807 bytes)" or a JSON syntax error: say
  // what is wrong with the path.
  for (const char* name : {"dir.rtrace", "dir.json", "dir.pbtxt"}) {
    fs::create_directory(dir_.path(name));
    const ValidationReport report = validate_file(dir_.path(name));
    ASSERT_EQ(report.errors.size(), 1u) << name;
    EXPECT_THAT(report.errors[0].describe(), StartsWith(dir_.path(name) + ": "));
    EXPECT_THAT(report.errors[0].message, HasSubstr("directory")) << name;
  }
}

TEST(Crc32, MatchesZlib) {
  // The standard check value of CRC-32/ISO-HDLC, and lengths around the
  // 4-byte fast path.
  EXPECT_EQ(racetrack::crc32("123456789", 9), 0xCBF43926u);
  EXPECT_EQ(racetrack::crc32("", 0), 0u);
  EXPECT_EQ(racetrack::crc32("a", 1), 0xE8B7BE43u);
  EXPECT_EQ(racetrack::crc32("abc", 3), 0x352441C2u);
  EXPECT_EQ(racetrack::crc32("abcd", 4), 0xED82CD11u);
  EXPECT_EQ(racetrack::crc32("The quick brown fox jumps over the lazy dog", 43), 0x414FA339u);
}

}  // namespace
}  // namespace racetrack
