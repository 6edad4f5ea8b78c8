// Reading values records: what racetrack_torch writes is read back whole,
// and each kind of bad line is an error naming the line and what is wrong;
// the command exits 2 on them and leaves both inputs untouched.
#include "racetrack/diverge/values_record.h"

#include <gtest/gtest.h>

#include "run_cli.h"
#include "test_support.h"

namespace racetrack::testing {
namespace {

constexpr const char* kHeader = R"({"racetrack_values": 1, "torch": "2.15.0"})";
constexpr const char* kRecord =
    R"({"seq": 0, "phase": "forward", "module": "m.fc1", "op": "aten::addmm", "n": 0, "stack": ["a.py:3 f"],)"
    R"( "in": [], "out": [{"hash": "00000000000000aa", "dtype": "float32", "numel": 4, "sum": 1.5,)"
    R"( "absmax": 1.0, "nan": 0, "inf": 0}]})";

TEST(ValuesRecord, ReadsWhatTheRecorderWrites) {
  TempDir dir;
  write_bytes(dir.path("v.jsonl"), std::string(kHeader) + "\n" + kRecord + "\n");
  auto read = diverge::read_values(dir.path("v.jsonl"));
  ASSERT_TRUE(read.ok()) << read.error().describe();
  EXPECT_EQ(read->torch_version, "2.15.0");
  ASSERT_EQ(read->records.size(), 1u);
  const diverge::ValueRecord& r = read->records[0];
  EXPECT_EQ(r.module, "m.fc1");
  EXPECT_EQ(r.op, "aten::addmm");
  EXPECT_EQ(r.line, 2u);
  ASSERT_EQ(r.out.size(), 1u);
  EXPECT_EQ(r.out[0].hash, "00000000000000aa");
  EXPECT_DOUBLE_EQ(r.out[0].sum, 1.5);
  EXPECT_EQ(r.stack, std::vector<std::string>{"a.py:3 f"});
}

TEST(ValuesRecord, BadLinesNameTheLineAndTheField) {
  TempDir dir;
  const std::string record = kRecord;
  const struct {
    std::string text, message;
  } cases[] = {
      {"", "empty file"},
      {"{\"format\": 1}\n", "line 1: not a racetrack values record"},
      {R"({"racetrack_values": 2})"
       "\n",
       "line 1: values record format 2"},
      {std::string(kHeader) + "\nnot json\n", "line 2: not JSON"},
      {std::string(kHeader) + "\n" + R"({"seq": 0})" + "\n", "line 2: missing field \"phase\""},
      {std::string(kHeader) + "\n" + record.substr(0, record.find("\"n\": 0")) + "\"n\": \"x\"}\n",
       "line 2: field \"n\" has the wrong type"},
      {std::string(kHeader) + "\n" + kRecord + "\n" +
           std::string(kRecord).replace(std::string(kRecord).find("forward"), 7, "sideways") + "\n",
       "line 3: unknown phase \"sideways\""},
      {std::string(kHeader) + "\n" +
           std::string(kRecord).replace(std::string(kRecord).find("\"hash\""), 6, "\"h\"") + "\n",
       "line 2: a digest in \"out\": missing field \"hash\""},
      {std::string(kHeader) + "\n" + std::string(kRecord).replace(std::string(kRecord).find("00000000000000aa"), 16, "xyz") +
           "\n",
       "line 2: a digest in \"out\": hash \"xyz\" is not 1 to 16 lower-case hex digits"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.message);
    write_bytes(dir.path("bad.jsonl"), c.text);
    auto read = diverge::read_values(dir.path("bad.jsonl"));
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().describe().find(c.message), std::string::npos) << read.error().describe();
    EXPECT_NE(read.error().describe().find("bad.jsonl"), std::string::npos);

    write_bytes(dir.path("good.jsonl"), std::string(kHeader) + "\n" + kRecord + "\n");
    const std::string before = read_bytes(dir.path("bad.jsonl"));
    const CliRun run = run_cli(
        dir, "diff " + shell_quote(dir.path("good.jsonl")) + " " + shell_quote(dir.path("bad.jsonl")));
    EXPECT_EQ(run.code, 2) << run.out << run.err;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
    EXPECT_EQ(read_bytes(dir.path("bad.jsonl")), before);  // inputs are only read
  }
}

}  // namespace
}  // namespace racetrack::testing
