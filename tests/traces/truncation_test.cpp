// A binary trace cut at any byte (a killed capture) yields every complete
// chunk and then reports the incomplete frame's offset; it never crashes and
// never yields a partial chunk.
#include <gtest/gtest.h>

#include "racetrack/traces/trace_io.h"
#include "racetrack/traces/validate.h"
#include "test_support.h"

namespace racetrack {
namespace {

using testing::TempDir;

// ChunkReader's two ways to read: into a caller's Chunk, or into its arena.
enum class Api { kNext, kRead };

// The next chunk through `api`, serialized; "" at a clean end.
Result<std::string> next_chunk(ChunkReader& reader, Api api) {
  if (api == Api::kRead) {
    auto chunk = reader.read();
    if (!chunk) return chunk.error();
    return *chunk ? (*chunk)->SerializeAsString() : std::string();
  }
  v1::Chunk chunk;
  auto more = reader.next(chunk);
  if (!more) return more.error();
  return *more ? chunk.SerializeAsString() : std::string();
}

// Reads the prefixes of `lengths` bytes of the file at `path`, whose frames end
// at `ends` (the first entry being the end of the file header), and checks
// what the reader makes of each.
void check_prefixes(const std::string& path, const std::vector<uint64_t>& ends,
                    const std::vector<uint64_t>& lengths, const std::string& scratch, Api api) {
  const std::string bytes = testing::read_bytes(path);
  ASSERT_EQ(ends.front(), kFileHeaderSize);
  ASSERT_EQ(ends.back(), bytes.size());

  // The chunks of the whole file (serialized, a cheap exact comparison), and
  // the reader's view of the frame ends.
  std::vector<std::string> chunks;
  {
    auto reader = ChunkReader::open(path);
    ASSERT_TRUE(reader.ok()) << reader.error().describe();
    std::vector<uint64_t> seen{reader->offset()};
    v1::Chunk chunk;
    for (;;) {
      auto more = reader->next(chunk);
      ASSERT_TRUE(more.ok()) << more.error().describe();
      if (!*more) break;
      chunks.push_back(chunk.SerializeAsString());
      seen.push_back(reader->offset());
    }
    ASSERT_EQ(seen, ends) << "reader and writer disagree on frame boundaries";
  }
  ASSERT_GE(chunks.size(), 3u) << "the test needs a multi-chunk file";

  for (const uint64_t length : lengths) {
    SCOPED_TRACE("prefix of " + std::to_string(length) + " bytes");
    ASSERT_LE(length, bytes.size());
    testing::write_bytes(scratch, std::string_view(bytes).substr(0, length));
    auto reader = ChunkReader::open(scratch);
    if (length < kFileHeaderSize) {
      ASSERT_FALSE(reader.ok());
      EXPECT_EQ(reader.error().offset, 0u);
      EXPECT_NE(reader.error().message.find("too short"), std::string::npos) << reader.error().message;
      continue;
    }
    ASSERT_TRUE(reader.ok()) << reader.error().describe();

    // Frames that fit in the prefix are complete; the next one (if any) is not.
    size_t complete = 0;
    while (complete + 1 < ends.size() && ends[complete + 1] <= length) ++complete;
    for (size_t i = 0; i < complete; ++i) {
      auto chunk = next_chunk(*reader, api);
      ASSERT_TRUE(chunk.ok()) << "chunk " << i << ": " << chunk.error().describe();
      ASSERT_EQ(*chunk, chunks[i]) << "chunk " << i;
    }
    auto last = next_chunk(*reader, api);
    if (ends[complete] == length) {
      ASSERT_TRUE(last.ok()) << last.error().describe();
      EXPECT_EQ(*last, "") << "a prefix ending on a frame boundary ends cleanly";
    } else {
      ASSERT_FALSE(last.ok()) << "the incomplete frame must be reported";
      EXPECT_EQ(last.error().offset, ends[complete]);
      EXPECT_EQ(reader->offset(), ends[complete]);
      EXPECT_NE(last.error().message.find("truncated"), std::string::npos) << last.error().message;
    }
  }
}

std::vector<uint64_t> all_lengths(uint64_t size) {
  std::vector<uint64_t> out(size + 1);
  for (uint64_t i = 0; i <= size; ++i) out[i] = i;
  return out;
}

// The lengths where the reader's behaviour changes: inside the file header,
// and around each frame's start, the end of its header and its end.
std::vector<uint64_t> edge_lengths(const std::vector<uint64_t>& ends) {
  std::vector<uint64_t> out = all_lengths(kFileHeaderSize);
  for (const uint64_t end : ends)
    for (const uint64_t at : {end - 1, end, end + 1, end + kFrameHeaderSize - 1, end + kFrameHeaderSize,
                              end + kFrameHeaderSize + 1})
      if (at > kFileHeaderSize && at <= ends.back()) out.push_back(at);
  return out;
}

class Truncation : public ::testing::TestWithParam<bool> {};

TEST_P(Truncation, EveryPrefixOfAChunkedTrace) {
  TempDir dir;
  const std::string path = dir.path("full.rtrace");
  // A few KB in about ten frames.
  const auto ends = testing::write_chunked(testing::standard_trace(2), path, GetParam(), 5);
  check_prefixes(path, ends, all_lengths(ends.back()), dir.path("prefix.rtrace"), Api::kNext);
  check_prefixes(path, ends, edge_lengths(ends), dir.path("prefix.rtrace"), Api::kRead);
}

// Every prefix of every sample would take seconds under a sanitizer; the
// lengths around frame edges are where the reader's behaviour changes.
TEST_P(Truncation, EdgePrefixesOfEachSample) {
  const auto samples = testing::sample_files();
  if (samples.empty()) GTEST_SKIP() << "no samples yet";
  TempDir dir;
  for (const auto& sample : samples) {
    SCOPED_TRACE(sample.string());
    auto trace = load_trace(sample.string());
    ASSERT_TRUE(trace.ok()) << trace.error().describe();
    if (trace->ops_size() < 3) continue;  // too short to split into three chunks
    const std::string path = dir.path("sample.rtrace");
    const auto ends = testing::write_chunked(*trace, path, GetParam(), std::max(1, trace->ops_size() / 4));
    check_prefixes(path, ends, edge_lengths(ends), dir.path("prefix.rtrace"), Api::kNext);
    if (HasFatalFailure()) return;
  }
}

TEST_P(Truncation, ValidateReportsTheCutAfterTheCompleteChunks) {
  TempDir dir;
  const std::string path = dir.path("full.rtrace");
  const auto ends = testing::write_chunked(testing::standard_trace(3), path, GetParam(), 5);
  const std::string bytes = testing::read_bytes(path);
  const std::string cut = dir.path("cut.rtrace");
  // Cut inside the frame header and inside the stored bytes of frame 2.
  for (uint64_t length :
       {ends[2] + 1, ends[2] + kFrameHeaderSize - 1, ends[2] + kFrameHeaderSize + 1, ends[3] - 1}) {
    SCOPED_TRACE("prefix of " + std::to_string(length) + " bytes");
    testing::write_bytes(cut, std::string_view(bytes).substr(0, length));
    const ValidationReport report = validate_file(cut);
    EXPECT_EQ(report.chunks, 2u);
    EXPECT_EQ(report.ops, 10u);
    ASSERT_EQ(report.errors.size(), 1u);
    EXPECT_EQ(report.error_count, 1u);
    const Error& e = report.errors[0];
    EXPECT_EQ(e.offset, ends[2]);
    EXPECT_EQ(e.file, cut);
    EXPECT_EQ(e.describe().rfind(cut + ": offset " + std::to_string(ends[2]) + ": truncated chunk", 0), 0u)
        << e.describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Compression, Truncation, ::testing::Bool(),
                         [](const auto& p) { return p.param ? "zstd" : "raw"; });

}  // namespace
}  // namespace racetrack
