// A trace survives every encoding and every way of writing the binary
// container unchanged: binary (compressed or not, one chunk or many), text,
// JSON, builder streaming into a writer.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "racetrack/traces/trace_io.h"
#include "racetrack/traces/validate.h"
#include "test_support.h"

namespace racetrack {
namespace {

namespace fs = std::filesystem;
using google::protobuf::util::MessageDifferencer;
using testing::TempDir;

// Equals with a readable diff on failure.
::testing::AssertionResult same_trace(const v1::Chunk& expected, const v1::Chunk& actual) {
  MessageDifferencer differ;
  std::string diff;
  differ.ReportDifferencesToString(&diff);
  if (differ.Compare(expected, actual)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << diff;
}

v1::Chunk load_ok(const std::string& path) {
  auto trace = load_trace(path);
  EXPECT_TRUE(trace.ok()) << trace.error().describe();
  return trace.ok() ? std::move(*trace) : v1::Chunk();
}

TEST(RoundTrip, StandardTraceIsValidAndNonTrivial) {
  // The other tests lean on this trace; make sure it means something.
  const v1::Chunk trace = testing::standard_trace(2);
  EXPECT_EQ(trace.ops_size(), 2 * testing::kOpsPerIteration + testing::kTailOps);
  Validator validator;
  validator.check(trace, 0);
  EXPECT_EQ(validator.error_count(), 0u) << (validator.errors().empty() ? "" : validator.errors()[0].message);
  bool seen[kOpKindCount] = {};
  for (const v1::Op& op : trace.ops()) seen[static_cast<int>(op_kind(op))] = true;
  for (int k = 1; k < kOpKindCount; ++k)
    EXPECT_TRUE(seen[k]) << "no " << op_kind_name(static_cast<OpKind>(k)) << " op";
}

class EncodingRoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(EncodingRoundTrip, SaveThenLoadGivesTheSameTrace) {
  TempDir dir;
  const v1::Chunk trace = testing::standard_trace(2);
  const std::string path = dir.path(std::string("trace") + GetParam());
  ASSERT_TRUE(save_trace(trace, path).ok());
  EXPECT_TRUE(same_trace(trace, load_ok(path)));
}

INSTANTIATE_TEST_SUITE_P(Extensions, EncodingRoundTrip,
                         ::testing::Values(".rtrace", ".pbtxt", ".txtpb", ".textproto", ".json"),
                         [](const auto& p) { return std::string(p.param + 1); });

TEST(RoundTrip, ThroughEveryEncodingInTurn) {
  // binary -> text -> JSON -> binary: each step starts from the previous load.
  TempDir dir;
  const v1::Chunk original = testing::standard_trace(3);
  v1::Chunk current = original;
  for (const char* name : {"a.rtrace", "b.pbtxt", "c.json", "d.rtrace"}) {
    ASSERT_TRUE(save_trace(current, dir.path(name)).ok()) << name;
    current = load_ok(dir.path(name));
    EXPECT_TRUE(same_trace(original, current)) << "after " << name;
  }
}

TEST(RoundTrip, DevicePresenceSurvivesTextAndJson) {
  // device_start = 0 is "present, zero", which differs from "absent".
  TempDir dir;
  const v1::Chunk trace = testing::standard_trace(1);
  for (const char* name : {"t.pbtxt", "t.json", "t.rtrace"}) {
    ASSERT_TRUE(save_trace(trace, dir.path(name)).ok());
    const v1::Chunk back = load_ok(dir.path(name));
    ASSERT_EQ(back.ops_size(), trace.ops_size());
    int zero_present = 0, absent = 0;
    for (const v1::Op& op : back.ops()) {
      if (op.has_device_start() && op.device_start() == 0) ++zero_present;
      if (!op.has_device_start()) ++absent;
    }
    EXPECT_EQ(zero_present, 1) << name;
    EXPECT_GT(absent, 0) << name;
  }
}

struct BinaryCase {
  bool compress;
  size_t ops_per_chunk;
};

void PrintTo(const BinaryCase& c, std::ostream* os) {
  *os << (c.compress ? "zstd" : "raw") << ", " << c.ops_per_chunk << " ops per chunk";
}

class BinaryRoundTrip : public ::testing::TestWithParam<BinaryCase> {};

TEST_P(BinaryRoundTrip, ChunkedFileStreamsBackToTheSameTrace) {
  TempDir dir;
  const auto [compress, ops_per_chunk] = GetParam();
  const v1::Chunk trace = testing::standard_trace(5);
  const std::string path = dir.path("t.rtrace");
  ASSERT_TRUE(save_trace(trace, path, {.compress = compress, .ops_per_chunk = ops_per_chunk}).ok());

  // Stream it frame by frame: the expected number of chunks, each within
  // the size limit, codec as asked, offsets advancing to the end.
  const size_t expected_chunks = (trace.ops_size() + ops_per_chunk - 1) / ops_per_chunk;
  const std::string bytes = testing::read_bytes(path);
  auto reader = ChunkReader::open(path);
  ASSERT_TRUE(reader.ok()) << reader.error().describe();
  EXPECT_EQ(reader->version(), kFormatVersion);
  EXPECT_EQ(reader->file_size(), bytes.size());
  v1::Chunk chunk, merged;
  size_t chunks = 0;
  for (;;) {
    const uint64_t at = reader->offset();
    auto more = reader->next(chunk);
    ASSERT_TRUE(more.ok()) << more.error().describe();
    if (!*more) break;
    ++chunks;
    EXPECT_LE(static_cast<size_t>(chunk.ops_size()), ops_per_chunk);
    EXPECT_EQ(chunk.has_header(), chunks == 1);
    EXPECT_EQ(static_cast<uint8_t>(bytes[at + 8]), compress ? 1 : 0) << "codec of frame at " << at;
    EXPECT_GT(reader->offset(), at);
    append_chunk(merged, chunk);
  }
  EXPECT_EQ(chunks, expected_chunks);
  EXPECT_EQ(reader->offset(), bytes.size());
  EXPECT_TRUE(same_trace(trace, merged));
  EXPECT_TRUE(same_trace(trace, load_ok(path)));
}

INSTANTIATE_TEST_SUITE_P(Options, BinaryRoundTrip,
                         ::testing::Values(BinaryCase{false, 32768}, BinaryCase{true, 32768},
                                           BinaryCase{false, 7}, BinaryCase{true, 7}, BinaryCase{true, 1}),
                         [](const auto& p) {
                           return std::string(p.param.compress ? "zstd" : "raw") + "_" +
                                  std::to_string(p.param.ops_per_chunk);
                         });

TEST(RoundTrip, ArenaReadYieldsTheSameChunksAsNext) {
  // read() decodes into the reader's arena, reused from chunk to chunk.
  TempDir dir;
  const v1::Chunk trace = testing::standard_trace(4);
  const std::string path = dir.path("t.rtrace");
  const auto ends = testing::write_chunked(trace, path, /*compress=*/true, 9);
  auto by_next = ChunkReader::open(path);
  auto by_read = ChunkReader::open(path);
  ASSERT_TRUE(by_next.ok() && by_read.ok());
  v1::Chunk chunk;
  for (size_t i = 1; i < ends.size(); ++i) {
    auto more = by_next->next(chunk);
    auto read = by_read->read();
    ASSERT_TRUE(more.ok() && *more);
    ASSERT_TRUE(read.ok()) << read.error().describe();
    ASSERT_NE(*read, nullptr);
    EXPECT_TRUE(same_trace(chunk, **read)) << "chunk " << i;
    EXPECT_EQ(by_read->offset(), ends[i]);
  }
  auto end = by_read->read();
  ASSERT_TRUE(end.ok());
  EXPECT_EQ(*end, nullptr);

  // TraceSource::read hands a text trace out once, whole.
  ASSERT_TRUE(save_trace(trace, dir.path("t.pbtxt")).ok());
  auto source = TraceSource::open(dir.path("t.pbtxt"));
  ASSERT_TRUE(source.ok());
  EXPECT_EQ(source->position(), 0u);
  auto whole = source->read();
  ASSERT_TRUE(whole.ok() && *whole != nullptr);
  EXPECT_TRUE(same_trace(trace, **whole));
  EXPECT_EQ(source->position(), source->size());
  auto after = source->read();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, nullptr);
  v1::Chunk unused;
  auto next_after = source->next(unused);
  ASSERT_TRUE(next_after.ok());
  EXPECT_FALSE(*next_after) << "read() and next() share one position";
}

TEST(RoundTrip, CompressionShrinksARepetitiveTrace) {
  TempDir dir;
  const v1::Chunk trace = testing::standard_trace(20);
  ASSERT_TRUE(save_trace(trace, dir.path("raw.rtrace"), {.compress = false}).ok());
  ASSERT_TRUE(save_trace(trace, dir.path("zstd.rtrace"), {.compress = true}).ok());
  EXPECT_LT(fs::file_size(dir.path("zstd.rtrace")), fs::file_size(dir.path("raw.rtrace")) / 2);
  EXPECT_TRUE(same_trace(load_ok(dir.path("raw.rtrace")), load_ok(dir.path("zstd.rtrace"))));
}

class StreamingBuilder : public ::testing::TestWithParam<bool> {};

TEST_P(StreamingBuilder, WritesTheSameTraceAsInMemory) {
  TempDir dir;
  constexpr int kIterations = 6;
  constexpr size_t kOpsPerChunk = 10;
  const std::string path = dir.path("streamed.rtrace");
  {
    auto writer = TraceWriter::create(path, {.compress = GetParam(), .ops_per_chunk = kOpsPerChunk});
    ASSERT_TRUE(writer.ok());
    TraceBuilder b(*writer);
    testing::add_standard_ops(b, kIterations);
    EXPECT_EQ(b.take().ops_size(), 0) << "a streaming builder keeps nothing";
    ASSERT_TRUE(b.finish().ok());
    ASSERT_TRUE(writer->close().ok());
  }
  const v1::Chunk expected = testing::standard_trace(kIterations);

  // The file is many chunks, each full except the last, and entities are
  // defined no later than the chunk that first uses them (validation passes).
  auto source = TraceSource::open(path);
  ASSERT_TRUE(source.ok());
  EXPECT_EQ(source->encoding(), Encoding::kBinary);
  v1::Chunk chunk;
  std::vector<int> sizes;
  uint64_t last_position = source->position();
  for (;;) {
    auto more = source->next(chunk);
    ASSERT_TRUE(more.ok()) << more.error().describe();
    if (!*more) break;
    sizes.push_back(chunk.ops_size());
    EXPECT_GT(source->position(), last_position);
    last_position = source->position();
  }
  EXPECT_EQ(last_position, source->size());
  const size_t ops = static_cast<size_t>(expected.ops_size());
  ASSERT_EQ(sizes.size(), (ops + kOpsPerChunk - 1) / kOpsPerChunk);
  for (size_t i = 0; i + 1 < sizes.size(); ++i) EXPECT_EQ(sizes[i], static_cast<int>(kOpsPerChunk));

  EXPECT_TRUE(same_trace(expected, load_ok(path)));
  const ValidationReport report = validate_file(path);
  EXPECT_EQ(report.error_count, 0u) << (report.errors.empty() ? "" : report.errors[0].describe());
  EXPECT_EQ(report.chunks, sizes.size());
  EXPECT_EQ(report.ops, ops);
}

INSTANTIATE_TEST_SUITE_P(Compression, StreamingBuilder, ::testing::Bool(),
                         [](const auto& p) { return p.param ? "zstd" : "raw"; });

TEST(RoundTrip, EverySampleThroughEveryEncoding) {
  const auto samples = testing::sample_files();
  if (samples.empty()) GTEST_SKIP() << "no samples yet";
  TempDir dir;
  for (const auto& sample : samples) {
    const v1::Chunk original = load_ok(sample.string());
    EXPECT_GT(original.ops_size(), 0) << sample;
    for (const char* name : {"s.rtrace", "s.json", "s.pbtxt"}) {
      ASSERT_TRUE(save_trace(original, dir.path(name), {.ops_per_chunk = 3}).ok());
      EXPECT_TRUE(same_trace(original, load_ok(dir.path(name)))) << sample << " as " << name;
    }
  }
}

TEST(RoundTrip, EmptyBinaryTraceHasNoChunks) {
  TempDir dir;
  const std::string path = dir.path("empty.rtrace");
  {
    auto writer = TraceWriter::create(path);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(writer->close().ok());
  }
  EXPECT_EQ(fs::file_size(path), kFileHeaderSize);
  auto reader = ChunkReader::open(path);
  ASSERT_TRUE(reader.ok());
  v1::Chunk chunk;
  auto more = reader->next(chunk);
  ASSERT_TRUE(more.ok());
  EXPECT_FALSE(*more);
}

TEST(Encoding, ContentBeatsTheExtension) {
  TempDir dir;
  const v1::Chunk trace = testing::standard_trace(1);
  // A binary trace with a JSON name is still binary (the magic decides).
  ASSERT_TRUE(save_trace(trace, dir.path("real.rtrace")).ok());
  fs::copy_file(dir.path("real.rtrace"), dir.path("misnamed.json"));
  EXPECT_EQ(encoding_for_read(dir.path("misnamed.json")), Encoding::kBinary);
  EXPECT_TRUE(same_trace(trace, load_ok(dir.path("misnamed.json"))));
  // JSON without a telling extension is recognised by its first character.
  ASSERT_TRUE(save_trace(trace, dir.path("t.json")).ok());
  fs::copy_file(dir.path("t.json"), dir.path("noext"));
  EXPECT_EQ(encoding_for_read(dir.path("noext")), Encoding::kJson);
  EXPECT_TRUE(same_trace(trace, load_ok(dir.path("noext"))));
  // Text with an unknown extension is read as binary, so it gets a magic error.
  ASSERT_TRUE(save_trace(trace, dir.path("t.pbtxt")).ok());
  fs::copy_file(dir.path("t.pbtxt"), dir.path("t.txt"));
  auto wrong = load_trace(dir.path("t.txt"));
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("magic"), std::string::npos) << wrong.error().message;
}

TEST(Encoding, WriteEncodingFollowsTheExtension) {
  EXPECT_EQ(encoding_for_write("a.pbtxt"), Encoding::kText);
  EXPECT_EQ(encoding_for_write("a.txtpb"), Encoding::kText);
  EXPECT_EQ(encoding_for_write("a.textproto"), Encoding::kText);
  EXPECT_EQ(encoding_for_write("a.json"), Encoding::kJson);
  EXPECT_EQ(encoding_for_write("a.rtrace"), Encoding::kBinary);
  EXPECT_EQ(encoding_for_write("pbtxt"), Encoding::kBinary);
}

TEST(Encoding, TextAndJsonErrorsNameTheFile) {
  TempDir dir;
  testing::write_bytes(dir.path("bad.pbtxt"), "ops { seq: 1 kernel { name: \"not a number\" } }\n");
  auto text = load_trace(dir.path("bad.pbtxt"));
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().file, dir.path("bad.pbtxt"));
  EXPECT_NE(text.error().message.find("line 1"), std::string::npos) << text.error().message;

  testing::write_bytes(dir.path("bad.json"), "{\"ops\": [ {\"seq\": \"x\"} ]}");
  auto json = load_trace(dir.path("bad.json"));
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.error().file, dir.path("bad.json"));
  EXPECT_NE(json.error().message.find("JSON"), std::string::npos) << json.error().message;

  auto missing = load_trace(dir.path("missing.pbtxt"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().describe().find("missing.pbtxt"), std::string::npos);
}

TEST(AppendChunk, KeepsTheFirstHeaderAndConcatenatesTables) {
  v1::Chunk a = testing::standard_trace(1);
  v1::Chunk b;
  b.mutable_header()->set_producer("second");
  b.add_strings("extra");
  b.add_ops()->set_seq(1000);
  v1::Chunk into;
  append_chunk(into, a);
  append_chunk(into, b);
  EXPECT_EQ(into.header().producer(), "racetrack-builder");
  EXPECT_EQ(into.strings_size(), a.strings_size() + 1);
  EXPECT_EQ(into.strings(into.strings_size() - 1), "extra");
  EXPECT_EQ(into.ops_size(), a.ops_size() + 1);
  EXPECT_EQ(into.streams_size(), a.streams_size());
}

}  // namespace
}  // namespace racetrack
