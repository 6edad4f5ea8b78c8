// `export_chrome` / `export_trace` to JSON: parsed with nlohmann::json and
// checked against the scenario: X events with exact µs times, the documented
// pid/tid mapping, thread_name / process_name metadata for every track, NVTX
// ranges as B/E events, record -> wait flows v2 on the events themselves,
// hazard flows v1 and hazard marks as instants.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "export_scenario.h"
#include "racetrack/traces/describe.h"
#include "racetrack/traces/export.h"
#include "racetrack/traces/timeline.h"
#include "racetrack/traces/trace_io.h"
#include "test_support.h"

namespace racetrack {
namespace {

using nlohmann::json;
using Lane = std::pair<uint64_t, uint64_t>;  // (pid, tid)

constexpr uint64_t kHostPid = 1;
constexpr uint64_t kHazardPid = 1'000'000;
constexpr uint64_t kHostTidBase = 1'000'000'000;
constexpr uint64_t kExtraTidBase = 2'000'000'000;
uint64_t device_pid(uint32_t ordinal) {
  return 2 + ordinal;
}

// Exact: the file has three decimals of µs.
int64_t ns(const json& us) {
  return std::llround(us.get<double>() * 1000);
}

Lane lane_of(const json& e) {
  return {e.at("pid"), e.at("tid")};
}

struct Parsed {
  std::map<uint64_t, json> ops;  // X events by seq
  std::vector<json> hazards, marks, flows, nvtx;
  std::map<Lane, std::string> thread_names;
  std::map<uint64_t, std::string> process_names;

  Lane lane_named(const std::string& name) const {
    for (const auto& [lane, n] : thread_names)
      if (n == name) return lane;
    ADD_FAILURE() << "no thread named '" << name << "'";
    return {};
  }
};

Parsed parse(const std::string& text) {
  Parsed p;
  const json doc = json::parse(text);  // throws, failing the test, on invalid JSON
  EXPECT_TRUE(doc.contains("traceEvents"));
  for (const json& e : doc.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (ph == "X" && e.at("cat") == "hazard") {
      p.hazards.push_back(e);
    } else if (ph == "X") {
      const uint64_t seq = e.at("args").at("seq");
      EXPECT_FALSE(p.ops.count(seq)) << "two events for seq " << seq;
      p.ops[seq] = e;
    } else if (ph == "B" || ph == "E") {
      p.nvtx.push_back(e);
    } else if (ph == "i") {
      p.marks.push_back(e);
    } else if (ph == "s" || ph == "f") {
      p.flows.push_back(e);
    } else if (ph == "M") {
      const std::string name = e.at("args").at("name");
      if (e.at("name") == "thread_name") {
        EXPECT_FALSE(p.thread_names.count(lane_of(e))) << "lane named twice";
        p.thread_names[lane_of(e)] = name;
      } else {
        EXPECT_EQ(e.at("name"), "process_name");
        EXPECT_FALSE(p.process_names.count(e.at("pid"))) << "process named twice";
        p.process_names[e.at("pid")] = name;
      }
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
  return p;
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
    parsed_ = parse(text_);
    tables_.add(scenario_.trace);
  }

  Lane lane_of(const testing::ExpectedSlice& want) const {
    std::string name =
        want.on_stream ? stream_lane_name(tables_, want.lane) : thread_lane_name(tables_, want.lane);
    if (want.overlap) return parsed_.lane_named(name + " overlap " + std::to_string(want.overlap));
    if (!want.on_stream) return {kHostPid, kHostTidBase + want.lane};
    return {device_pid(tables_.stream(want.lane)->device()), want.lane};
  }

  testing::TempDir dir_;
  testing::ExportScenario scenario_;
  std::string in_, out_, text_;
  ExportStats stats_;
  Parsed parsed_;
  TraceTables tables_;
};

TEST_F(ChromeExport, EveryTrackIsNamed) {
  // Other tracks get tids from 2e9 on, in the order they first appear.
  const std::map<Lane, std::string> want = {
      {{device_pid(0), scenario_.compute}, "compute"},
      {{device_pid(0), scenario_.offload}, "offload (d2h)"},
      {{device_pid(1), scenario_.prefetch}, "stream 3 (h2d)"},
      {{device_pid(0), scenario_.unused}, "spare (other)"},
      {{kHostPid, kHostTidBase + scenario_.main_thread}, "main (tid 1001)"},
      {{kHostPid, kHostTidBase + scenario_.worker}, "worker (tid 1002)"},
      {{kHostPid, kHostTidBase + scenario_.idle}, "idle (tid 1003)"},
      {{kHostPid, kExtraTidBase}, "main (tid 1001) NVTX"},
      {{device_pid(0), kExtraTidBase + 1}, "compute overlap 1"},
  };
  EXPECT_EQ(parsed_.thread_names, want);
  const std::map<uint64_t, std::string> processes = {{device_pid(0), "GPU 0: Test GPU"},
                                                     {device_pid(1), "GPU 1: Other GPU"},
                                                     {kHostPid, "Host box (pid 77)"}};
  EXPECT_EQ(parsed_.process_names, processes);
}

TEST_F(ChromeExport, OneCompleteEventPerOpWithItsNameLaneAndExactSpan) {
  ASSERT_EQ(parsed_.ops.size(), static_cast<size_t>(scenario_.trace.ops_size()));
  EXPECT_EQ(stats_.slices, parsed_.ops.size());
  EXPECT_EQ(stats_.bytes, text_.size());
  for (const v1::Op& op : scenario_.trace.ops()) {
    SCOPED_TRACE("seq " + std::to_string(op.seq()));
    const json& e = parsed_.ops.at(op.seq());
    const testing::ExpectedSlice& want = scenario_.slices.at(op.seq());
    EXPECT_EQ(e.at("name"), op_title(op, tables_));
    EXPECT_EQ(e.at("cat"), std::string(op_kind_name(op_kind(op))));
    EXPECT_EQ(ns(e.at("ts")), want.start);
    EXPECT_EQ(ns(e.at("dur")), want.end - want.start);
    if (op.has_device_start()) {
      EXPECT_EQ(ns(e.at("ts")), op.device_start());
      EXPECT_EQ(ns(e.at("ts")) + ns(e.at("dur")), op.device_end());
    }
    EXPECT_EQ(::racetrack::lane_of(e), lane_of(want));
    EXPECT_TRUE(parsed_.thread_names.count(::racetrack::lane_of(e))) << "event on an unnamed lane";
  }
  EXPECT_EQ(parsed_.ops.at(14).at("name"), "kernel k\"q\\\n");
  // ts keeps nanoseconds: three decimals of µs.
  EXPECT_NE(text_.find("\"ts\":29.500,\"dur\":1.500"), std::string::npos);
}

TEST_F(ChromeExport, ArgsCarryTheOpDetails) {
  const json& copy = parsed_.ops.at(4).at("args");
  EXPECT_EQ(copy.at("bytes"), 4096);
  EXPECT_EQ(copy.at("direction"), "D2H");
  EXPECT_EQ(copy.at("src"), hex(scenario_.trace.regions(1).base()));
  EXPECT_EQ(copy.at("async"), true);
  EXPECT_EQ(copy.at("role"), "d2h");
  EXPECT_EQ(copy.at("timing"), "device");
  EXPECT_EQ(parsed_.ops.at(2).at("args").at("shifted_ns"), 5000);
  EXPECT_EQ(parsed_.ops.at(2).at("args").at("timing"), "estimated");
  EXPECT_EQ(parsed_.ops.at(13).at("args").at("nvtx"), "step");
  // A kernel's accesses name each region and its address, from the facts
  // the tables keep of it.
  const v1::Op& kernel = scenario_.trace.ops(0);
  ASSERT_TRUE(kernel.has_kernel());
  const std::string accesses = parsed_.ops.at(kernel.seq()).at("args").at("accesses");
  for (const v1::Access& a : kernel.kernel().accesses()) {
    ASSERT_NE(a.region(), 0u);
    const v1::Region& r = scenario_.trace.regions(static_cast<int>(a.region()) - 1);
    EXPECT_NE(accesses.find(tables_.region_label(r.id()) + " " + hex(r.base() + a.offset())),
              std::string::npos)
        << accesses;
  }
}

TEST_F(ChromeExport, FlowsBindTheRecordToEachOfItsWaits) {
  std::map<uint64_t, uint64_t> record_of_bind;  // bind_id -> record seq
  for (const auto& [seq, e] : parsed_.ops) {
    if (!e.contains("bind_id")) continue;
    EXPECT_TRUE(e.contains("flow_out") != e.contains("flow_in")) << "seq " << seq;
    if (e.contains("flow_out")) {
      EXPECT_EQ(e.at("flow_out"), true);
      EXPECT_EQ(e.at("cat"), "record");
      EXPECT_TRUE(record_of_bind.emplace(e.at("bind_id").get<uint64_t>(), seq).second);
    }
  }
  std::set<std::pair<uint64_t, uint64_t>> pairs;
  for (const auto& [seq, e] : parsed_.ops) {
    if (!e.contains("flow_in")) continue;
    EXPECT_EQ(e.at("flow_in"), true);
    EXPECT_EQ(e.at("cat"), "wait");
    const uint64_t bind = e.at("bind_id");
    ASSERT_TRUE(record_of_bind.count(bind)) << "flow_in without a flow_out";
    pairs.insert({record_of_bind.at(bind), seq});
  }
  EXPECT_EQ(pairs, scenario_.flows);
  EXPECT_EQ(stats_.flows, scenario_.flows.size());
  EXPECT_FALSE(parsed_.ops.at(9).contains("bind_id")) << "a record nobody waits for";
  EXPECT_FALSE(parsed_.ops.at(10).contains("bind_id")) << "a wait with no record";
}

TEST_F(ChromeExport, NvtxRangesAreBeginEndPairsThatNest) {
  const Lane nvtx = parsed_.lane_named("main (tid 1001) NVTX");
  std::vector<std::pair<std::string, int64_t>> open;  // path, start
  std::set<testing::ExpectedRange> got;
  for (const json& e : parsed_.nvtx) {  // in file order: as Perfetto reads B/E of one time
    EXPECT_EQ(::racetrack::lane_of(e), nvtx);
    if (e.at("ph") == "B") {
      open.push_back({e.at("args").at("path"), ns(e.at("ts"))});
    } else {
      ASSERT_FALSE(open.empty());
      got.insert({open.back().first, open.back().second, ns(e.at("ts"))});
      open.pop_back();
    }
  }
  EXPECT_TRUE(open.empty());
  EXPECT_EQ(got, scenario_.main_ranges);
}

TEST_F(ChromeExport, HazardsAreCompleteEventsWithFlowsAndMarks) {
  ExportOptions options;
  options.hazards = testing::scenario_hazards();
  std::ostringstream out;
  auto stats = export_trace(in_, out, ExportFormat::kChrome, options);
  ASSERT_TRUE(stats.ok()) << stats.error().describe();
  const Parsed p = parse(out.str());
  EXPECT_EQ(p.process_names.at(kHazardPid), "Hazards (racetrack check)");
  const Lane lane = p.lane_named("Hazards (racetrack check)");
  const Lane overlap = p.lane_named("Hazards overlap 1");
  ASSERT_EQ(p.hazards.size(), 3u);
  const auto want = testing::scenario_hazard_slices();
  for (const json& e : p.hazards) {
    const testing::ExpectedHazard& w = want.at(e.at("args").at("hazard"));
    SCOPED_TRACE("hazard " + std::to_string(w.number));
    EXPECT_EQ(e.at("name"), options.hazards[w.number - 1].title);
    EXPECT_EQ(ns(e.at("ts")), w.start);
    EXPECT_EQ(ns(e.at("ts")) + ns(e.at("dur")), w.end);
    EXPECT_EQ(::racetrack::lane_of(e), w.overlap ? overlap : lane);
  }
  // v1 flows: an `s` where a flow starts, an `f` bound to the slice it ends
  // in, never before its start.
  std::map<uint64_t, std::pair<const json*, const json*>> flows;
  for (const json& e : p.flows) (e.at("ph") == "s" ? flows[e.at("id")].first : flows[e.at("id")].second) = &e;
  EXPECT_EQ(flows.size(), 3u + 3u + 1u);
  for (const auto& [id, ends] : flows) {
    ASSERT_TRUE(ends.first && ends.second) << "flow " << id;
    EXPECT_EQ(ends.second->at("bp"), "e");
    EXPECT_LE(ns(ends.first->at("ts")), ns(ends.second->at("ts")));
  }
  // [1]: #4 (12000, offload) and #6 (10000, prefetch): from #6, the earlier.
  const json& from6 = *std::find_if(p.flows.begin(), p.flows.end(), [&](const json& e) {
    return e.at("ph") == "s" && ns(e.at("ts")) == 10000 &&
           ::racetrack::lane_of(e) == Lane{device_pid(1), scenario_.prefetch};
  });
  const json& to4 = *flows.at(from6.at("id")).second;
  EXPECT_EQ(ns(to4.at("ts")), 12000);
  EXPECT_EQ(::racetrack::lane_of(to4), Lane(device_pid(0), scenario_.offload));

  ASSERT_EQ(p.marks.size(), 6u);
  for (const json& m : p.marks) {
    EXPECT_EQ(m.at("s"), "t");
    EXPECT_EQ(m.at("cat"), "hazard");
  }
  EXPECT_EQ(p.ops.at(14).at("args").at("hazards"), "[2] second");
}

TEST_F(ChromeExport, TheStandardTraceIsValidJsonWithAnEventPerOp) {
  const v1::Chunk trace = testing::standard_trace(2);
  const std::string in = dir_.path("standard.pbtxt");
  ASSERT_TRUE(save_trace(trace, in).ok());
  std::ostringstream out;
  auto stats = export_chrome(in, out);
  ASSERT_TRUE(stats.ok()) << stats.error().describe();
  EXPECT_EQ(parse(out.str()).ops.size(), static_cast<size_t>(trace.ops_size()));
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
