// Values records inside the trace format: a record converted to a trace
// (binary, in small chunks, and JSON) reads back field for field, diff gives
// the same answer on either form, and the validator rejects values that
// break the format's rules.
#include "racetrack/diverge/values_trace.h"

#include <gtest/gtest.h>

#include "racetrack/diverge/first_divergence.h"
#include "racetrack/traces/validate.h"
#include "run_cli.h"
#include "test_support.h"

namespace racetrack::testing {
namespace {

diverge::ValuesRecord sample_record() {
  diverge::ValuesRecord v;
  v.torch_version = "2.15.0";
  const char* phases[] = {"forward", "forward", "recompute", "backward", "backward", "optimizer"};
  for (uint64_t i = 0; i < 6; ++i) {
    diverge::ValueRecord r;
    r.seq = i;
    r.phase = phases[i];
    r.module = i == 5 ? "" : "m.fc" + std::to_string(i % 2);
    r.op = i == 4 ? "grad" : "aten::op" + std::to_string(i);
    r.param = i == 4 ? "m.fc0.weight" : "";
    r.n = i / 2;
    r.time_ns = 1764680000000000000 + static_cast<int64_t>(i) * 1000;
    r.thread = 4242;
    if (i == 1) r.stack = {"train.py:3 step"};
    r.in = {{"00000000000000a" + std::to_string(i), "float32", 4, 1.5, 2.0, 0, 0}};
    r.out = {{"3fffffffffffffff", "bfloat16", 8, -1.0, 3.0, 1, 2}};
    v.records.push_back(r);
  }
  return v;
}

void expect_same(const diverge::ValuesRecord& a, const diverge::ValuesRecord& b) {
  ASSERT_EQ(a.records.size(), b.records.size());
  for (size_t i = 0; i < a.records.size(); ++i) {
    SCOPED_TRACE("record " + std::to_string(i));
    const diverge::ValueRecord &x = a.records[i], &y = b.records[i];
    EXPECT_EQ(x.seq, y.seq);
    EXPECT_EQ(x.phase, y.phase);
    EXPECT_EQ(x.module, y.module);
    EXPECT_EQ(x.op, y.op);
    EXPECT_EQ(x.param, y.param);
    EXPECT_EQ(x.n, y.n);
    EXPECT_EQ(x.time_ns, y.time_ns);
    EXPECT_EQ(x.thread, y.thread);
    EXPECT_EQ(x.stack, y.stack);
    ASSERT_EQ(x.in.size(), y.in.size());
    ASSERT_EQ(x.out.size(), y.out.size());
    for (size_t k = 0; k < x.out.size(); ++k) {
      EXPECT_EQ(x.out[k].hash, y.out[k].hash);
      EXPECT_EQ(x.out[k].dtype, y.out[k].dtype);
      EXPECT_EQ(x.out[k].numel, y.out[k].numel);
      EXPECT_EQ(x.out[k].sum, y.out[k].sum);
      EXPECT_EQ(x.out[k].absmax, y.out[k].absmax);
      EXPECT_EQ(x.out[k].nan, y.out[k].nan);
      EXPECT_EQ(x.out[k].inf, y.out[k].inf);
    }
    EXPECT_EQ(x.in[0].hash, y.in[0].hash);
  }
}

TEST(ValuesTrace, ARecordRoundTripsThroughEveryEncoding) {
  TempDir dir;
  const diverge::ValuesRecord record = sample_record();
  WriterOptions small;
  small.ops_per_chunk = 4;  // several chunks, strings defined as they first appear
  for (const std::string name : {"v.rtrace", "v.json", "v.pbtxt"}) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(diverge::write_values_trace(record, dir.path(name), small).ok());
    EXPECT_FALSE(diverge::is_values_record(dir.path(name)));
    auto read = diverge::read_values_any(dir.path(name));
    ASSERT_TRUE(read.ok()) << read.error().describe();
    expect_same(record, *read);
  }
}

TEST(ValuesTrace, DiffGivesTheSameAnswerOnARecordAndItsTrace) {
  TempDir dir;
  diverge::ValuesRecord run = sample_record();
  run.records[3].out[0].hash = "0000000000000001";
  run.records[3].out[0].absmax = 0;
  ASSERT_TRUE(diverge::write_values_trace(sample_record(), dir.path("base.rtrace")).ok());
  ASSERT_TRUE(diverge::write_values_trace(run, dir.path("run.rtrace")).ok());
  const auto base = diverge::read_values_any(dir.path("base.rtrace"));
  const auto drifted = diverge::read_values_any(dir.path("run.rtrace"));
  ASSERT_TRUE(base.ok() && drifted.ok());
  const auto result = first_divergence(*base, *drifted, {});
  ASSERT_TRUE(result.first);
  EXPECT_EQ(result.first->run->seq, 3u);
  EXPECT_EQ(result.first->how, diverge::Difference::kZerosVsNonZeros);

  const CliRun cli = run_cli(
      dir, "diff " + shell_quote(dir.path("base.rtrace")) + " " + shell_quote(dir.path("run.rtrace")));
  EXPECT_EQ(cli.code, 1) << cli.err;
  EXPECT_NE(cli.out.find("backward m.fc1 aten::op3 #1"), std::string::npos) << cli.out;

  // A trace without values is refused with what to do about it.
  const CliRun none = run_cli(
      dir, "diff " + shell_quote(std::string(RACETRACK_SAMPLES_DIR) + "/c1_reload_not_waited.race.pbtxt") +
               " " + shell_quote(dir.path("run.rtrace")));
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("carries no operator values"), std::string::npos) << none.err;
}

TEST(ValuesTrace, ConvertMakesATraceOfARecordWithoutTouchingIt) {
  TempDir dir;
  const std::string record =
      R"({"racetrack_values": 1, "torch": "x"})"
      "\n"
      R"({"seq": 0, "phase": "forward", "module": "", "op": "aten::mul", "n": 0, "t": 5,)"
      R"( "thread": 1, "in": [], "out": [{"hash": "ab", "dtype": "float32", "numel": 1,)"
      R"( "sum": 1.0, "absmax": 1.0, "nan": 0, "inf": 0}]})"
      "\n";
  write_bytes(dir.path("v.jsonl"), record);
  const CliRun run =
      run_cli(dir, "convert " + shell_quote(dir.path("v.jsonl")) + " " + shell_quote(dir.path("v.rtrace")));
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(read_bytes(dir.path("v.jsonl")), record);
  EXPECT_EQ(run_cli(dir, "validate " + shell_quote(dir.path("v.rtrace"))).code, 0);
  EXPECT_NE(run_cli(dir, "info " + shell_quote(dir.path("v.rtrace")))
                .out.find("1 operator values (for racetrack diff)"),
            std::string::npos);
  const CliRun onto_itself =
      run_cli(dir, "convert " + shell_quote(dir.path("v.jsonl")) + " " + shell_quote(dir.path("v.jsonl")));
  EXPECT_EQ(onto_itself.code, 2);
  EXPECT_EQ(read_bytes(dir.path("v.jsonl")), record);
}

TEST(ValuesTrace, ValuesAddedToACaptureComeAfterItsOpsOnItsClock) {
  TempDir dir;
  const std::string trace = dir.path("t.rtrace");
  ASSERT_EQ(
      run_cli(dir, "convert " +
                       shell_quote(std::string(RACETRACK_SAMPLES_DIR) + "/c1_reload_not_waited.race.pbtxt") +
                       " " + shell_quote(trace))
          .code,
      0);
  const diverge::ValuesRecord record = sample_record();
  ASSERT_TRUE(diverge::add_values_to_trace(trace, record).ok());
  auto read = diverge::read_values_any(trace);
  ASSERT_TRUE(read.ok()) << read.error().describe();
  expect_same(record, *read);  // absolute times again, whatever the trace's origin
  EXPECT_EQ(run_cli(dir, "check " + shell_quote(trace)).code, 1);  // its ops and its race are still there
  const auto again = diverge::add_values_to_trace(trace, record);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message.find("carries operator values already"), std::string::npos);
}

TEST(ValuesTrace, TheValidatorRejectsBrokenValues) {
  v1::Chunk chunk;
  chunk.mutable_header()->set_format_version(1);
  chunk.add_strings("aten::mul");
  auto add = [&](uint64_t seq, v1::ValuePhase phase, uint32_t op, uint32_t dtype) {
    v1::OperatorValues& v = *chunk.add_values();
    v.set_seq(seq);
    v.set_phase(phase);
    v.set_op(op);
    v.add_outputs()->set_dtype(dtype);
  };
  add(0, v1::PHASE_FORWARD, 1, 1);
  add(2, v1::PHASE_FORWARD, 1, 1);   // a seq skipped
  add(3, v1::PHASE_UNKNOWN, 1, 1);   // no phase
  add(4, v1::PHASE_BACKWARD, 0, 1);  // no operator
  add(5, v1::PHASE_BACKWARD, 1, 9);  // a string that does not exist
  Validator validator;
  validator.check(chunk, 0);
  std::string all;
  for (const Error& e : validator.errors()) all += e.message + "\n";
  EXPECT_NE(all.find("operator values 2 is out of order: expected seq 1"), std::string::npos) << all;
  EXPECT_NE(all.find("operator values 3 has no known phase"), std::string::npos) << all;
  EXPECT_NE(all.find("operator values 4 names no operator"), std::string::npos) << all;
  EXPECT_NE(all.find("operator values 5 dtype names string 9"), std::string::npos) << all;
  EXPECT_EQ(validator.error_count(), 4u) << all;
}

}  // namespace
}  // namespace racetrack::testing
