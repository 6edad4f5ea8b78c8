// Damaged bytes in a binary trace are reported, never decoded as wrong values
// and never a crash: every frame is checksummed and its header checked, so a
// change anywhere in the file is caught at the frame that holds it.
#include <gtest/gtest.h>

#include <random>

#include "racetrack/traces/trace_io.h"
#include "racetrack/traces/validate.h"
#include "test_support.h"

namespace racetrack {
namespace {

using testing::TempDir;

class Corruption : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    path_ = dir_.path("good.rtrace");
    ends_ = testing::write_chunked(testing::standard_trace(2), path_, GetParam(), 6);
    bytes_ = testing::read_bytes(path_);
    ASSERT_EQ(ends_.back(), bytes_.size());
    auto reader = ChunkReader::open(path_);
    ASSERT_TRUE(reader.ok());
    v1::Chunk chunk;
    while (true) {
      auto more = reader->next(chunk);
      ASSERT_TRUE(more.ok());
      if (!*more) break;
      chunks_.push_back(chunk.SerializeAsString());
    }
    ASSERT_EQ(chunks_.size() + 1, ends_.size());
  }

  // Reads `damaged` and checks the outcome against where it first differs
  // from the good file: the same content when it does not differ, else an
  // error at the file header or at the frame holding the first changed byte,
  // after every earlier chunk was read intact. With `also_validate`,
  // validate_file must report that same error.
  void check(const std::string& damaged, bool also_validate) {
    const std::string path = dir_.path("damaged.rtrace");
    testing::write_bytes(path, damaged);
    size_t first = 0;
    while (first < damaged.size() && damaged[first] == bytes_[first]) ++first;
    const bool changed = first < damaged.size();

    auto reader = ChunkReader::open(path);
    if (changed && first < kFileHeaderSize) {
      ASSERT_FALSE(reader.ok()) << "a damaged file header must be reported";
      const bool magic = first < sizeof kMagic;
      EXPECT_EQ(reader.error().offset, magic ? 0u : 6u);
      EXPECT_NE(reader.error().message.find(magic ? "magic" : "version"), std::string::npos)
          << reader.error().message;
      return;
    }
    ASSERT_TRUE(reader.ok()) << reader.error().describe();
    // The frame that holds the first changed byte.
    size_t bad = chunks_.size();
    if (changed)
      for (bad = 0; ends_[bad + 1] <= first; ++bad) {
      }
    v1::Chunk chunk;
    for (size_t i = 0; i < bad; ++i) {
      auto more = reader->next(chunk);
      ASSERT_TRUE(more.ok()) << "intact chunk " << i << ": " << more.error().describe();
      ASSERT_TRUE(*more);
      ASSERT_EQ(chunk.SerializeAsString(), chunks_[i]) << "chunk " << i;
    }
    auto more = reader->next(chunk);
    if (!changed) {
      ASSERT_TRUE(more.ok()) << more.error().describe();
      EXPECT_FALSE(*more);
      return;
    }
    ASSERT_FALSE(more.ok()) << "change at byte " << first << " (frame " << bad << ") went unnoticed";
    EXPECT_EQ(more.error().offset, ends_[bad]);
    EXPECT_NE(more.error().message.find("chunk"), std::string::npos) << more.error().message;

    if (!also_validate) return;
    // validate_file reports the same single error (everything before it is valid).
    const ValidationReport report = validate_file(path);
    ASSERT_EQ(report.errors.size(), 1u) << (report.errors.empty() ? "" : report.errors[0].describe());
    EXPECT_EQ(report.errors[0].offset, ends_[bad]);
    EXPECT_EQ(report.chunks, bad);
  }

  TempDir dir_;
  std::string path_;
  std::vector<uint64_t> ends_;
  std::string bytes_;
  std::vector<std::string> chunks_;  // serialized: a cheap exact comparison
};

TEST_P(Corruption, EverySingleByteChangeIsCaught) {
  // 0xA5 sets high bits, so a damaged size field reads as impossible rather
  // than as a large allocation.
  for (size_t i = 0; i < bytes_.size(); ++i) {
    SCOPED_TRACE("byte " + std::to_string(i));
    std::string damaged = bytes_;
    damaged[i] = static_cast<char>(damaged[i] ^ 0xA5);
    check(damaged, /*also_validate=*/false);  // the random test covers validate_file
    if (HasFatalFailure()) return;
  }
}

TEST_P(Corruption, RandomDamageIsCaught) {
  std::mt19937 rng(GetParam() ? 20240611 : 7);
  std::uniform_int_distribution<size_t> position(0, bytes_.size() - 1);
  std::uniform_int_distribution<int> byte(0, 255), count(1, 6), how(0, 2);
  for (int trial = 0; trial < 400; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    std::string damaged = bytes_;
    const int n = count(rng);
    for (int k = 0; k < n; ++k) {
      const size_t at = position(rng);
      const int kind = how(rng);
      if (kind == 0) {
        damaged[at] = static_cast<char>(byte(rng));  // overwrite a byte
      } else if (kind == 1) {
        damaged[at] = static_cast<char>(damaged[at] ^ (1 << (byte(rng) % 8)));  // flip a bit
      } else {
        for (size_t j = at; j < std::min(at + 8, damaged.size()); ++j)  // overwrite a short run
          damaged[j] = static_cast<char>(byte(rng));
      }
    }
    check(damaged, /*also_validate=*/true);
    if (HasFatalFailure()) return;
  }
}

TEST_P(Corruption, UnchangedRewriteReadsTheSame) {
  // The control case for check(): identical bytes must read back cleanly.
  check(bytes_, /*also_validate=*/true);
}

TEST_P(Corruption, TrailingGarbageIsReportedAfterTheGoodChunks) {
  std::string damaged = bytes_ + std::string(5, '\x42');
  const std::string path = dir_.path("tail.rtrace");
  testing::write_bytes(path, damaged);
  auto reader = ChunkReader::open(path);
  ASSERT_TRUE(reader.ok());
  v1::Chunk chunk;
  for (size_t i = 0; i < chunks_.size(); ++i) ASSERT_TRUE(reader->next(chunk).ok());
  auto more = reader->next(chunk);
  ASSERT_FALSE(more.ok());
  EXPECT_EQ(more.error().offset, bytes_.size());
}

INSTANTIATE_TEST_SUITE_P(Compression, Corruption, ::testing::Bool(),
                         [](const auto& p) { return p.param ? "zstd" : "raw"; });

}  // namespace
}  // namespace racetrack
