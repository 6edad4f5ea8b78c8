// PrefetchingSource hands out exactly the chunks TraceSource reads, in order,
// each valid until the next call while the thread decodes ahead, and stops
// at the same error with the same offset.
#include <gtest/gtest.h>

#include "racetrack/traces/prefetch.h"
#include "racetrack/traces/trace_io.h"
#include "test_support.h"

namespace racetrack {
namespace {

using testing::TempDir;

struct Read {
  std::vector<std::string> chunks;  // serialized
  std::vector<uint64_t> offsets;    // where each chunk started
  std::optional<Error> error;
};

Read direct(const std::string& path) {
  auto source = TraceSource::open(path);
  if (!source) return {{}, {}, source.error()};
  Read out;
  for (;;) {
    const uint64_t at = source->position();
    auto chunk = source->read();
    if (!chunk) {
      out.error = chunk.error();
      return out;
    }
    if (!*chunk) return out;
    out.chunks.push_back((*chunk)->SerializeAsString());
    out.offsets.push_back(at);
  }
}

Read prefetched(const std::string& path) {
  auto source = TraceSource::open(path);
  if (!source) return {{}, {}, source.error()};
  PrefetchingSource ahead(std::move(*source));
  Read out;
  for (;;) {
    auto chunk = ahead.read();
    if (!chunk) {
      out.error = chunk.error();
      return out;
    }
    if (!*chunk) break;
    out.chunks.push_back((*chunk)->SerializeAsString());
    out.offsets.push_back(ahead.chunk_offset());
  }
  // The end is sticky.
  auto again = ahead.read();
  EXPECT_TRUE(again.ok() && !*again);
  return out;
}

class Prefetch : public ::testing::TestWithParam<bool> {};

TEST_P(Prefetch, SameChunksAndOffsetsAsTheDirectReader) {
  TempDir dir;
  const std::string path = dir.path("chunked.rtrace");
  testing::write_chunked(testing::standard_trace(3), path, GetParam(), 3);
  const Read want = direct(path);
  ASSERT_FALSE(want.error) << want.error->describe();
  ASSERT_GE(want.chunks.size(), 5u) << "the test needs a multi-chunk file";
  const Read got = prefetched(path);
  ASSERT_FALSE(got.error) << got.error->describe();
  EXPECT_EQ(got.chunks, want.chunks);
  EXPECT_EQ(got.offsets, want.offsets);
}

TEST_P(Prefetch, StopsAtTheSameErrorAsTheDirectReader) {
  TempDir dir;
  const std::string path = dir.path("chunked.rtrace");
  const auto ends = testing::write_chunked(testing::standard_trace(3), path, GetParam(), 3);
  // Cut inside the fourth frame: three chunks, then a truncated frame.
  const std::string cut = dir.path("cut.rtrace");
  testing::write_bytes(cut, testing::read_bytes(path).substr(0, ends[3] + 5));
  const Read want = direct(cut);
  ASSERT_TRUE(want.error);
  const Read got = prefetched(cut);
  ASSERT_TRUE(got.error);
  EXPECT_EQ(got.chunks, want.chunks);
  EXPECT_EQ(got.error->offset, want.error->offset);
  EXPECT_EQ(got.error->message, want.error->message);
}

TEST_P(Prefetch, LeavingEarlyStopsTheThread) {
  TempDir dir;
  const std::string path = dir.path("chunked.rtrace");
  testing::write_chunked(testing::standard_trace(3), path, GetParam(), 3);
  auto source = TraceSource::open(path);
  ASSERT_TRUE(source.ok());
  PrefetchingSource ahead(std::move(*source));
  auto first = ahead.read();
  ASSERT_TRUE(first.ok() && *first);
  // Destroyed here with chunks left: the destructor must not hang.
}

INSTANTIATE_TEST_SUITE_P(Codecs, Prefetch, ::testing::Bool(),
                         [](const auto& p) { return p.param ? "zstd" : "plain"; });

}  // namespace
}  // namespace racetrack
