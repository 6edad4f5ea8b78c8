// PrefetchingSource hands out exactly the chunks TraceSource reads, in order,
// each valid until the next call while the thread decodes ahead, and stops
// at the same error with the same offset, whichever thread validates.
#include "racetrack/traces/prefetch.h"

#include <cstdint>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

// `busy_from`: the chunk after which the caller says another thread of its
// competes for the cores.
Read prefetched(const std::string& path, PrefetchingSource::Validation validation, size_t busy_from) {
  auto source = TraceSource::open(path);
  if (!source) return {{}, {}, source.error()};
  PrefetchingSource ahead(std::move(*source), validation);
  Read out;
  for (;;) {
    if (out.chunks.size() == busy_from) ahead.another_thread_busy();
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

using Validation = PrefetchingSource::Validation;

// Compressed or not, which thread validates, and from which chunk on
// another thread competes (SIZE_MAX: never).
class Prefetch : public ::testing::TestWithParam<std::tuple<bool, Validation, size_t>> {
 protected:
  bool compressed() const { return std::get<0>(GetParam()); }
  Read prefetched(const std::string& path) const {
    return racetrack::prefetched(path, std::get<1>(GetParam()), std::get<2>(GetParam()));
  }
};

TEST_P(Prefetch, SameChunksAndOffsetsAsTheDirectReader) {
  TempDir dir;
  const std::string path = dir.path("chunked.rtrace");
  testing::write_chunked(testing::standard_trace(3), path, compressed(), 3);
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
  const auto ends = testing::write_chunked(testing::standard_trace(3), path, compressed(), 3);
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

TEST_P(Prefetch, StopsAtTheSameInvalidChunkAsTheDirectReader) {
  // Chunks that decode but break a rule: an op in a later chunk names an
  // undefined thread, so validation fails there.
  TempDir dir;
  v1::Chunk trace = testing::standard_trace(3);
  trace.mutable_ops(trace.ops_size() - 4)->set_thread(99);
  const std::string path = dir.path("invalid.rtrace");
  testing::write_chunked(trace, path, compressed(), 3);
  const Read want = direct(path);
  ASSERT_TRUE(want.error);
  ASSERT_GE(want.chunks.size(), 3u) << "the test needs the error in a later chunk";
  const Read got = prefetched(path);
  ASSERT_TRUE(got.error);
  EXPECT_EQ(got.chunks, want.chunks);
  EXPECT_EQ(got.error->offset, want.error->offset);
  EXPECT_EQ(got.error->message, want.error->message);
  EXPECT_THAT(got.error->message, ::testing::HasSubstr("names host thread 99"));
}

TEST_P(Prefetch, LeavingEarlyStopsTheThread) {
  TempDir dir;
  const std::string path = dir.path("chunked.rtrace");
  testing::write_chunked(testing::standard_trace(3), path, compressed(), 3);
  auto source = TraceSource::open(path);
  ASSERT_TRUE(source.ok());
  PrefetchingSource ahead(std::move(*source), std::get<1>(GetParam()));
  auto first = ahead.read();
  ASSERT_TRUE(first.ok() && *first);
  // Destroyed here with chunks left: the destructor must not hang.
}

std::string name(const ::testing::TestParamInfo<std::tuple<bool, Validation, size_t>>& p) {
  const char* by[] = {"SpareThread", "Reader", "Caller"};
  const size_t busy_from = std::get<2>(p.param);
  return std::string(std::get<0>(p.param) ? "zstd" : "plain") + "ValidatedBy" +
         by[static_cast<int>(std::get<1>(p.param))] +
         (busy_from == SIZE_MAX ? "" : "AnotherThreadBusyFrom" + std::to_string(busy_from));
}

INSTANTIATE_TEST_SUITE_P(CodecsAndValidators, Prefetch,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Values(Validation::kSpareThread, Validation::kReader,
                                                              Validation::kCaller),
                                            ::testing::Values(SIZE_MAX, 0, 2)),
                         name);

}  // namespace
}  // namespace racetrack
