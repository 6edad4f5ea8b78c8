// `export_chrome`: the JSON is parsed with nlohmann::json and checked against
// the scenario: X events with µs times, the documented pid/tid mapping,
// thread_name / process_name metadata for every lane, and flows v2 on the
// events themselves.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "export_scenario.h"
#include "racetrack/traces/describe.h"
#include "racetrack/traces/export.h"
#include "racetrack/traces/trace_io.h"
#include "test_support.h"

namespace racetrack {
namespace {

using nlohmann::json;

constexpr uint64_t kHostPid = 1;
constexpr uint64_t kHostTidBase = 1'000'000'000;
uint64_t device_pid(uint32_t ordinal) {
  return 2 + ordinal;
}

int64_t ns(const json& us) {
  return std::llround(us.get<double>() * 1000);
}

class ChromeExport : public ::testing::Test {
 protected:
  void SetUp() override {
    scenario_ = testing::export_scenario();
    in_ = dir_.path("in.rtrace");
    testing::write_chunked(scenario_.trace, in_, /*compress=*/false, 4);
    out_ = dir_.path("out.json");
    auto stats = export_chrome(in_, out_);
    ASSERT_TRUE(stats.ok()) << stats.error().describe();
    stats_ = *stats;
    text_ = testing::read_bytes(out_);
    doc_ = json::parse(text_);  // throws, failing the test, on invalid JSON
    ASSERT_TRUE(doc_.contains("traceEvents"));
    for (const json& e : doc_["traceEvents"]) {
      const std::string ph = e.at("ph");
      if (ph == "X") {
        const uint64_t seq = e.at("args").at("seq");
        EXPECT_FALSE(slices_.count(seq)) << "two events for seq " << seq;
        slices_[seq] = e;
      } else if (ph == "M") {
        const std::pair<uint64_t, uint64_t> lane{e.at("pid"), e.at("tid")};
        const std::string name = e.at("args").at("name");
        if (e.at("name") == "thread_name") {
          EXPECT_FALSE(thread_names_.count(lane)) << "lane named twice";
          thread_names_[lane] = name;
        } else {
          ASSERT_EQ(e.at("name"), "process_name");
          EXPECT_FALSE(process_names_.count(lane.first)) << "process named twice";
          process_names_[lane.first] = name;
        }
      } else {
        ADD_FAILURE() << "unexpected phase " << ph;
      }
    }
    tables_.add(scenario_.trace);
  }

  std::pair<uint64_t, uint64_t> lane_of(const testing::ExpectedSlice& want) const {
    if (!want.on_stream) return {kHostPid, kHostTidBase + want.lane};
    return {device_pid(tables_.stream(want.lane)->device()), want.lane};
  }

  testing::TempDir dir_;
  testing::ExportScenario scenario_;
  std::string in_, out_, text_;
  ExportStats stats_;
  json doc_;
  std::map<uint64_t, json> slices_;
  std::map<std::pair<uint64_t, uint64_t>, std::string> thread_names_;
  std::map<uint64_t, std::string> process_names_;
  TraceTables tables_;
};

TEST_F(ChromeExport, EveryLaneIsNamed) {
  const std::map<std::pair<uint64_t, uint64_t>, std::string> want = {
      {{device_pid(0), scenario_.compute}, "compute"},
      {{device_pid(0), scenario_.offload}, "offload (d2h)"},
      {{device_pid(1), scenario_.prefetch}, "stream 3 (h2d)"},
      {{device_pid(0), scenario_.unused}, "spare (other)"},
      {{kHostPid, kHostTidBase + scenario_.main_thread}, "main (tid 1001)"},
      {{kHostPid, kHostTidBase + scenario_.worker}, "worker (tid 1002)"},
      {{kHostPid, kHostTidBase + scenario_.idle}, "idle (tid 1003)"},
  };
  EXPECT_EQ(thread_names_, want);
  const std::map<uint64_t, std::string> processes = {{device_pid(0), "GPU 0: Test GPU"},
                                                     {device_pid(1), "GPU 1: Other GPU"},
                                                     {kHostPid, "Host box (pid 77)"}};
  EXPECT_EQ(process_names_, processes);
}

TEST_F(ChromeExport, OneCompleteEventPerOpWithItsNameLaneAndSpan) {
  ASSERT_EQ(slices_.size(), static_cast<size_t>(scenario_.trace.ops_size()));
  EXPECT_EQ(stats_.slices, slices_.size());
  EXPECT_EQ(stats_.bytes, text_.size());
  for (const v1::Op& op : scenario_.trace.ops()) {
    SCOPED_TRACE("seq " + std::to_string(op.seq()));
    const json& e = slices_.at(op.seq());
    const testing::ExpectedSlice& want = scenario_.slices.at(op.seq());
    EXPECT_EQ(e.at("name"), op_title(op, tables_));
    EXPECT_EQ(e.at("cat"), std::string(op_kind_name(op_kind(op))));
    EXPECT_EQ(ns(e.at("ts")), want.start);
    EXPECT_EQ(ns(e.at("dur")), want.end - want.start);
    const std::pair<uint64_t, uint64_t> lane{e.at("pid"), e.at("tid")};
    EXPECT_EQ(lane, lane_of(want));
    EXPECT_TRUE(thread_names_.count(lane)) << "event on an unnamed lane";
  }
  EXPECT_EQ(slices_.at(14).at("name"), "kernel k\"q\\\n");
  // ts keeps nanoseconds: three decimals of µs.
  EXPECT_NE(text_.find("\"ts\":30.000,\"dur\":0.001"), std::string::npos);
}

TEST_F(ChromeExport, ArgsCarryTheOpDetails) {
  const json& copy = slices_.at(4).at("args");
  EXPECT_EQ(copy.at("bytes"), 4096);
  EXPECT_EQ(copy.at("direction"), "D2H");
  EXPECT_EQ(copy.at("src"), hex(scenario_.trace.regions(1).base()));
  EXPECT_EQ(copy.at("async"), true);
  EXPECT_EQ(copy.at("role"), "d2h");
  EXPECT_EQ(slices_.at(2).at("args").at("shifted_ns"), 5000);
  EXPECT_EQ(slices_.at(13).at("args").at("nvtx"), "step");
}

TEST_F(ChromeExport, FlowsBindTheRecordToEachOfItsWaits) {
  std::map<uint64_t, uint64_t> record_of_bind;  // bind_id -> record seq
  for (const auto& [seq, e] : slices_) {
    if (!e.contains("bind_id")) continue;
    EXPECT_TRUE(e.contains("flow_out") != e.contains("flow_in")) << "seq " << seq;
    if (e.contains("flow_out")) {
      EXPECT_EQ(e.at("flow_out"), true);
      EXPECT_EQ(e.at("cat"), "record");
      EXPECT_TRUE(record_of_bind.emplace(e.at("bind_id").get<uint64_t>(), seq).second);
    }
  }
  std::set<std::pair<uint64_t, uint64_t>> pairs;
  for (const auto& [seq, e] : slices_) {
    if (!e.contains("flow_in")) continue;
    EXPECT_EQ(e.at("flow_in"), true);
    EXPECT_EQ(e.at("cat"), "wait");
    const uint64_t bind = e.at("bind_id");
    ASSERT_TRUE(record_of_bind.count(bind)) << "flow_in without a flow_out";
    pairs.insert({record_of_bind.at(bind), seq});
  }
  EXPECT_EQ(pairs, scenario_.flows);
  EXPECT_EQ(stats_.flows, scenario_.flows.size());
  EXPECT_FALSE(slices_.at(9).contains("bind_id")) << "a record nobody waits for";
  EXPECT_FALSE(slices_.at(10).contains("bind_id")) << "a wait with no record";
}

TEST_F(ChromeExport, TheStandardTraceIsValidJsonWithAnEventPerOp) {
  const v1::Chunk trace = testing::standard_trace(2);
  const std::string in = dir_.path("standard.pbtxt");
  ASSERT_TRUE(save_trace(trace, in).ok());
  std::ostringstream out;
  auto stats = export_chrome(in, out);
  ASSERT_TRUE(stats.ok()) << stats.error().describe();
  const json doc = json::parse(out.str());
  size_t complete = 0;
  for (const json& e : doc.at("traceEvents")) complete += e.at("ph") == "X";
  EXPECT_EQ(complete, static_cast<size_t>(trace.ops_size()));
}

TEST_F(ChromeExport, ACorruptInputIsAnErrorAndLeavesNoOutput) {
  const v1::Chunk trace = testing::standard_trace(2);
  const std::string in = dir_.path("bad.rtrace");
  const auto ends = testing::write_chunked(trace, in, /*compress=*/false, 5);
  std::string bytes = testing::read_bytes(in);
  bytes[ends[1] + kFrameHeaderSize + 5] ^= 0x10;  // the second frame fails its checksum
  testing::write_bytes(in, bytes);
  const std::string out = dir_.path("bad.json");
  auto stats = export_chrome(in, out);
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error().file, in);
  EXPECT_EQ(stats.error().offset, ends[1]);
  EXPECT_FALSE(testing::fs::exists(out));
}

}  // namespace
}  // namespace racetrack
