// `export_perfetto` / `export_trace`: the file is decoded with our own copy of
// Perfetto's schema and replayed the way trace_processor does (packets
// sorted by timestamp, stably; on each track a BEGIN opens a slice, an END
// closes the innermost one, an instant sits inside what is open; a flow id
// on two slices' flow_ids is one flow), then checked against the scenario.
// tests/export/verify_export.py checks a synth export with Perfetto's full
// schema.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>

#include "export_scenario.h"
#include "perfetto_trace.pb.h"
#include "racetrack/traces/describe.h"
#include "racetrack/traces/export.h"
#include "racetrack/traces/timeline.h"
#include "racetrack/traces/trace_io.h"
#include "test_support.h"

namespace racetrack {
namespace {

namespace pf = ::racetrack::perfetto;

struct Track {
  std::string name;
  uint64_t parent = 0;
};

struct DecodedSlice {
  uint64_t track = 0;
  uint64_t start = 0, end = 0;
  uint32_t depth = 0;
  bool instant = false;
  std::string name;
  std::vector<std::string> categories;
  std::map<std::string, pf::DebugAnnotation> args;
  std::vector<uint64_t> flow_ids, terminating;

  uint64_t uint_arg(const std::string& key) const { return args.count(key) ? args.at(key).uint_value() : 0; }
};

struct Decoded {
  std::map<uint64_t, Track> tracks;
  std::map<uint64_t, DecodedSlice> ops;  // by the "seq" annotation
  std::vector<DecodedSlice> others;      // NVTX ranges, hazards, instants
  std::vector<std::pair<const DecodedSlice*, const DecodedSlice*>> shared_flows;  // by flow_ids alone

  uint64_t track_named(const std::string& name) const {
    for (const auto& [uuid, track] : tracks)
      if (track.name == name) return uuid;
    ADD_FAILURE() << "no track named '" << name << "'";
    return 0;
  }
  std::vector<const DecodedSlice*> on(uint64_t track) const {
    std::vector<const DecodedSlice*> out;
    for (const DecodedSlice& s : others)
      if (s.track == track && !s.instant) out.push_back(&s);
    return out;
  }
};

Decoded decode(const std::string& bytes) {
  Decoded out;
  pf::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(bytes)) << "not a Trace message";
  std::vector<const pf::TracePacket*> events;
  uint32_t sequence = 0;
  for (const pf::TracePacket& p : trace.packet()) {
    if (!sequence) sequence = p.trusted_packet_sequence_id();
    EXPECT_NE(p.trusted_packet_sequence_id(), 0u);
    EXPECT_EQ(p.trusted_packet_sequence_id(), sequence) << "one sequence";
    if (p.has_track_descriptor()) {
      const pf::TrackDescriptor& d = p.track_descriptor();
      EXPECT_NE(d.uuid(), 0u);
      EXPECT_FALSE(out.tracks.count(d.uuid())) << "track " << d.uuid() << " described twice";
      EXPECT_EQ(d.sibling_merge_behavior(), pf::TrackDescriptor::SIBLING_MERGE_BEHAVIOR_NONE);
      out.tracks[d.uuid()] = {d.name(), d.parent_uuid()};
    }
    if (p.has_track_event()) events.push_back(&p);
  }
  for (const auto& [uuid, track] : out.tracks)
    EXPECT_TRUE(!track.parent || out.tracks.count(track.parent)) << track.name << ": unknown parent";
  std::stable_sort(events.begin(), events.end(), [](const pf::TracePacket* a, const pf::TracePacket* b) {
    return a->timestamp() < b->timestamp();
  });
  std::map<uint64_t, std::vector<DecodedSlice>> open;  // by track
  auto keep = [&](DecodedSlice s) {
    const uint64_t seq = s.uint_arg("seq");
    if (s.args.count("seq") && !s.instant) {
      EXPECT_EQ(s.depth, 0u) << "op " << seq << " nests in another: ops of one track must not overlap";
      EXPECT_FALSE(out.ops.count(seq)) << "two slices for seq " << seq;
      out.ops[seq] = std::move(s);
    } else {
      out.others.push_back(std::move(s));
    }
  };
  for (const pf::TracePacket* p : events) {
    const pf::TrackEvent& e = p->track_event();
    EXPECT_TRUE(out.tracks.count(e.track_uuid())) << "event on an undescribed track";
    auto& stack = open[e.track_uuid()];
    if (e.type() == pf::TrackEvent::TYPE_SLICE_END) {
      if (stack.empty()) {
        ADD_FAILURE() << "END without an open slice at " << p->timestamp();
        continue;
      }
      DecodedSlice s = std::move(stack.back());
      stack.pop_back();
      s.end = p->timestamp();
      keep(std::move(s));
      continue;
    }
    DecodedSlice s;
    s.track = e.track_uuid();
    s.start = s.end = p->timestamp();
    s.depth = static_cast<uint32_t>(stack.size());
    s.instant = e.type() == pf::TrackEvent::TYPE_INSTANT;
    s.name = e.name();
    s.categories.assign(e.categories().begin(), e.categories().end());
    for (const pf::DebugAnnotation& a : e.debug_annotations()) s.args[a.name()] = a;
    s.flow_ids.assign(e.flow_ids().begin(), e.flow_ids().end());
    s.terminating.assign(e.terminating_flow_ids().begin(), e.terminating_flow_ids().end());
    if (s.instant) {
      keep(std::move(s));
    } else {
      EXPECT_EQ(e.type(), pf::TrackEvent::TYPE_SLICE_BEGIN);
      stack.push_back(std::move(s));
    }
  }
  for (const auto& [track, stack] : open) EXPECT_TRUE(stack.empty()) << "unclosed slice on track " << track;
  // trace_processor: the first slice with a flow id begins the flow, the
  // next one with it in flow_ids continues it; terminating_flow_ids end it.
  std::map<uint64_t, std::vector<const DecodedSlice*>> users;
  for (const auto& [seq, s] : out.ops)
    for (uint64_t id : s.flow_ids) users[id].push_back(&s);
  for (const DecodedSlice& s : out.others)
    for (uint64_t id : s.flow_ids) users[id].push_back(&s);
  for (const auto& [id, slices] : users)
    if (slices.size() == 2) out.shared_flows.push_back({slices[0], slices[1]});
  return out;
}

class PerfettoExport : public ::testing::Test {
 protected:
  void SetUp() override {
    scenario_ = testing::export_scenario();
    in_ = dir_.path("in.rtrace");
    // Small chunks: the exporter must carry lanes and records across them.
    testing::write_chunked(scenario_.trace, in_, /*compress=*/true, 3);
    out_ = dir_.path("out.pftrace");
    auto stats = export_perfetto(in_, out_);
    ASSERT_TRUE(stats.ok()) << stats.error().describe();
    stats_ = *stats;
    bytes_ = testing::read_bytes(out_);
    decoded_ = decode(bytes_);
    tables_.add(scenario_.trace);
  }

  Decoded export_with(const ExportOptions& options, ExportStats* stats = nullptr) {
    std::ostringstream out;
    auto result = export_trace(in_, out, ExportFormat::kPerfetto, options);
    EXPECT_TRUE(result.ok()) << result.error().describe();
    if (stats && result) *stats = *result;
    return decode(out.str());
  }

  testing::TempDir dir_;
  testing::ExportScenario scenario_;
  std::string in_, out_, bytes_;
  ExportStats stats_;
  Decoded decoded_;
  TraceTables tables_;
};

TEST_F(PerfettoExport, TracksForDevicesStreamsThreadsOverlapsAndNvtx) {
  const Decoded& d = decoded_;
  const uint64_t gpu0 = d.track_named("GPU 0: Test GPU");
  const uint64_t gpu1 = d.track_named("GPU 1: Other GPU");
  const uint64_t host = d.track_named("Host box (pid 77)");
  EXPECT_EQ(d.tracks.at(gpu0).parent, 0u);
  EXPECT_EQ(d.tracks.at(gpu1).parent, 0u);
  EXPECT_EQ(d.tracks.at(host).parent, 0u);
  const uint64_t compute = d.track_named("compute");
  EXPECT_EQ(d.tracks.at(compute).parent, gpu0);
  EXPECT_EQ(d.tracks.at(d.track_named("offload (d2h)")).parent, gpu0);
  EXPECT_EQ(d.tracks.at(d.track_named("stream 3 (h2d)")).parent, gpu1);
  EXPECT_EQ(d.tracks.at(d.track_named("spare (other)")).parent, gpu0) << "a stream without ops has a track";
  EXPECT_EQ(d.tracks.at(d.track_named("compute overlap 1")).parent, compute)
      << "an overlap track sits under its lane";
  EXPECT_EQ(d.tracks.at(d.track_named("main (tid 1001)")).parent, host);
  EXPECT_EQ(d.tracks.at(d.track_named("main (tid 1001) NVTX")).parent, host);
  EXPECT_EQ(d.tracks.at(d.track_named("worker (tid 1002)")).parent, host);
  EXPECT_EQ(d.tracks.at(d.track_named("idle (tid 1003)")).parent, host) << "a thread without ops has a track";
  EXPECT_EQ(d.tracks.size(), 3u + 4u + 3u + 1u + 1u);
  EXPECT_EQ(stats_.overlap_tracks, 1u);
}

TEST_F(PerfettoExport, OneSlicePerOpWithItsNameTrackAndSpan) {
  ASSERT_EQ(decoded_.ops.size(), static_cast<size_t>(scenario_.trace.ops_size()));
  EXPECT_EQ(stats_.slices, decoded_.ops.size());
  for (const v1::Op& op : scenario_.trace.ops()) {
    SCOPED_TRACE("seq " + std::to_string(op.seq()));
    ASSERT_TRUE(decoded_.ops.count(op.seq()));
    const DecodedSlice& s = decoded_.ops.at(op.seq());
    const testing::ExpectedSlice& want = scenario_.slices.at(op.seq());
    EXPECT_EQ(s.name, op_title(op, tables_));
    EXPECT_EQ(s.categories, std::vector<std::string>{std::string(op_kind_name(op_kind(op)))});
    EXPECT_EQ(s.start, static_cast<uint64_t>(want.start));
    EXPECT_EQ(s.end, static_cast<uint64_t>(want.end));
    std::string track =
        want.on_stream ? stream_lane_name(tables_, want.lane) : thread_lane_name(tables_, want.lane);
    if (want.overlap) track += " overlap " + std::to_string(want.overlap);
    EXPECT_EQ(s.track, decoded_.track_named(track));
  }
  EXPECT_EQ(decoded_.ops.at(14).name, "kernel k\"q\\\n");
}

TEST_F(PerfettoExport, DeviceTimesAreKeptExactlyAndMarkedSo) {
  const v1::Chunk traces[] = {scenario_.trace, testing::standard_trace(3)};
  for (const v1::Chunk& trace : traces) {
    const std::string in = dir_.path("exact.pbtxt");
    ASSERT_TRUE(save_trace(trace, in).ok());
    std::ostringstream out;
    ASSERT_TRUE(export_perfetto(in, out).ok());
    const Decoded d = decode(out.str());
    size_t timed = 0;
    for (const v1::Op& op : trace.ops()) {
      if (!op.has_device_start() || !on_stream_lane(op)) continue;
      ++timed;
      const DecodedSlice& s = d.ops.at(op.seq());
      EXPECT_EQ(s.start, static_cast<uint64_t>(op.device_start())) << "seq " << op.seq();
      EXPECT_EQ(s.end, static_cast<uint64_t>(op.device_end())) << "seq " << op.seq();
      EXPECT_EQ(s.args.at("timing").string_value(), "device");
      EXPECT_FALSE(s.args.count("shifted_ns"));
    }
    EXPECT_GE(timed, 3u);
  }
}

TEST_F(PerfettoExport, AnnotationsCarryTheOpDetails) {
  const auto& copy = decoded_.ops.at(4).args;  // memcpy offload P <- Y, device-timed
  EXPECT_EQ(copy.at("bytes").uint_value(), 4096u);
  EXPECT_EQ(copy.at("direction").string_value(), "D2H");
  EXPECT_EQ(copy.at("src").pointer_value(), scenario_.trace.regions(1).base());
  EXPECT_EQ(copy.at("dst").pointer_value(), scenario_.trace.regions(2).base());
  EXPECT_TRUE(copy.at("async").bool_value());
  EXPECT_EQ(copy.at("timing").string_value(), "device");
  EXPECT_EQ(copy.at("role").string_value(), "d2h");
  EXPECT_EQ(copy.at("thread").string_value(), "main (tid 1001)");
  EXPECT_FALSE(copy.count("shifted_ns"));

  const auto& record = decoded_.ops.at(2).args;  // placed after the kernel on its stream
  EXPECT_EQ(record.at("timing").string_value(), "estimated");
  EXPECT_EQ(record.at("shifted_ns").uint_value(), 5000u);
  EXPECT_EQ(record.at("event").string_value(), "e_off");
  EXPECT_EQ(decoded_.ops.at(6).args.at("timing").string_value(), "estimated");
  EXPECT_FALSE(decoded_.ops.at(6).args.count("shifted_ns")) << "the stream was idle: it ran when asked";
  EXPECT_EQ(decoded_.ops.at(11).args.at("timing").string_value(), "host");
  EXPECT_EQ(decoded_.ops.at(8).args.at("record_seq").uint_value(), 7u);

  EXPECT_EQ(decoded_.ops.at(13).args.at("nvtx").string_value(), "step");
  EXPECT_EQ(decoded_.ops.at(11).args.at("stream").string_value(), "offload");
  EXPECT_EQ(decoded_.ops.at(1).args.at("accesses").string_value(),
            "R X 0x7f0000000000 4.0 KiB; W Y 0x7f0000001000 4.0 KiB");
}

TEST_F(PerfettoExport, OneFlowPerRecordWaitPairFromTheRecordToTheWait) {
  std::map<uint64_t, uint64_t> source, target;  // flow id -> seq
  for (const auto& [seq, s] : decoded_.ops) {
    for (uint64_t id : s.flow_ids) EXPECT_TRUE(source.emplace(id, seq).second) << "flow " << id << " forks";
    for (uint64_t id : s.terminating)
      EXPECT_TRUE(target.emplace(id, seq).second) << "flow " << id << " ends twice";
  }
  std::set<std::pair<uint64_t, uint64_t>> pairs;
  for (const auto& [id, from] : source) {
    ASSERT_TRUE(target.count(id)) << "flow " << id << " never ends";
    pairs.insert({from, target.at(id)});
    // trace_processor binds a flow only if its source starts first.
    EXPECT_LE(decoded_.ops.at(from).start, decoded_.ops.at(target.at(id)).start);
  }
  EXPECT_EQ(source.size(), target.size());
  EXPECT_EQ(pairs, scenario_.flows);
  EXPECT_EQ(stats_.flows, scenario_.flows.size());
  EXPECT_TRUE(decoded_.ops.at(9).flow_ids.empty()) << "a record nobody waits for has no flow";
  EXPECT_TRUE(decoded_.ops.at(10).terminating.empty()) << "a wait with no record has no flow";
}

TEST_F(PerfettoExport, NvtxRangesNestOnTheirThreadsTrack) {
  const uint64_t track = decoded_.track_named("main (tid 1001) NVTX");
  std::set<testing::ExpectedRange> got;
  for (const DecodedSlice* s : decoded_.on(track)) {
    const std::string path = s->args.at("path").string_value();
    got.insert({path, static_cast<int64_t>(s->start), static_cast<int64_t>(s->end)});
    EXPECT_EQ(s->name, path.substr(path.rfind('/') + 1));
    EXPECT_EQ(s->depth, static_cast<uint32_t>(std::count(path.begin(), path.end(), '/'))) << path;
  }
  EXPECT_EQ(got, scenario_.main_ranges);
  EXPECT_EQ(stats_.nvtx_ranges, scenario_.main_ranges.size());
}

TEST_F(PerfettoExport, HazardsGetSlicesFlowsAndMarksOnTheirOps) {
  ExportOptions options;
  options.hazards = testing::scenario_hazards();
  ExportStats stats;
  const Decoded d = export_with(options, &stats);
  EXPECT_EQ(stats.hazards, 3u);
  const uint64_t lane = d.track_named("Hazards (racetrack check)");
  const uint64_t overlap = d.track_named("Hazards overlap 1");
  EXPECT_EQ(d.tracks.at(lane).parent, 0u);
  EXPECT_EQ(d.tracks.at(overlap).parent, lane);

  std::map<uint64_t, const DecodedSlice*> slices;  // by number
  for (uint64_t t : {lane, overlap})
    for (const DecodedSlice* s : d.on(t)) slices[s->uint_arg("hazard")] = s;
  ASSERT_EQ(slices.size(), 3u);
  for (const auto& [number, want] : testing::scenario_hazard_slices()) {
    SCOPED_TRACE("hazard " + std::to_string(number));
    const DecodedSlice& s = *slices.at(number);
    const ExportHazard& h = options.hazards[number - 1];
    EXPECT_EQ(s.name, h.title);
    EXPECT_EQ(s.start, static_cast<uint64_t>(want.start));
    EXPECT_EQ(s.end, static_cast<uint64_t>(want.end));
    EXPECT_EQ(s.track, want.overlap ? overlap : lane);
    EXPECT_EQ(s.uint_arg("first_seq"), h.first_seq);
    EXPECT_EQ(s.uint_arg("second_seq"), h.second_seq);
    for (const auto& [key, text] : h.args) EXPECT_EQ(s.args.at(key).string_value(), text);

    // A flow from the hazard to each op, and one between the ops.
    const DecodedSlice& first = d.ops.at(h.first_seq);
    const DecodedSlice& second = d.ops.at(h.second_seq);
    auto joined = [&](const DecodedSlice& a, const DecodedSlice& b) {
      return std::count(d.shared_flows.begin(), d.shared_flows.end(), std::pair{&a, &b}) +
             std::count(d.shared_flows.begin(), d.shared_flows.end(), std::pair{&b, &a});
    };
    EXPECT_EQ(joined(s, first), 1);
    if (&first != &second) {
      EXPECT_EQ(joined(s, second), 1);
      EXPECT_EQ(joined(first, second), 1);
    }
    // An instant on each op's own track at its start, inside it.
    for (const auto& [side, op] : {std::pair{"first", &first}, std::pair{"second", &second}}) {
      const std::string name = "hazard [" + std::to_string(number) + "] " + side;
      auto mark = std::find_if(d.others.begin(), d.others.end(), [&](const DecodedSlice& m) {
        return m.instant && m.name == name && m.track == op->track && m.start == op->start;
      });
      EXPECT_NE(mark, d.others.end()) << name;
    }
  }
  EXPECT_EQ(d.ops.at(4).args.at("hazards").string_value(), "[1] first");
  EXPECT_EQ(d.ops.at(6).args.at("hazards").string_value(), "[1] second");
  EXPECT_EQ(d.ops.at(16).args.at("hazards").string_value(), "[3] first; [3] second");
  EXPECT_FALSE(d.ops.at(5).args.count("hazards"));
  EXPECT_EQ(d.shared_flows.size(), 3u + 3u + 1u);
}

TEST_F(PerfettoExport, AWindowExportsItsOpsAndTheHazardsInsideIt) {
  ExportOptions options;
  options.hazards = testing::scenario_hazards();
  options.from_seq = 2;
  options.to_seq = 14;
  std::vector<ExportPlan> plans;
  options.on_plan = [&](const ExportPlan& p) { plans.push_back(p); };
  ExportStats stats;
  const Decoded d = export_with(options, &stats);
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].trace_ops, static_cast<uint64_t>(scenario_.trace.ops_size()));
  EXPECT_EQ(plans[0].ops, 13u);
  EXPECT_EQ(plans[0].first_seq, 2u);
  EXPECT_EQ(plans[0].last_seq, 14u);
  EXPECT_EQ(plans[0].estimated_bytes, 13 * kPerfettoBytesPerOp);
  ASSERT_EQ(d.ops.size(), 13u);
  EXPECT_EQ(d.ops.begin()->first, 2u);
  EXPECT_EQ(d.ops.rbegin()->first, 14u);
  // Placed as in the whole trace: the record still follows the kernel before
  // the window.
  EXPECT_EQ(d.ops.at(2).start, 7000u);
  EXPECT_EQ(stats.flows, scenario_.flows.size());  // (2, 3), (2, 5), (7, 8)
  EXPECT_EQ(stats.hazards, 1u);
  EXPECT_EQ(stats.hazards_outside, 2u) << "[2] starts at #1 and [3] is #16: outside";

  options.from_seq = 3;
  options.max_ops = 3;
  const Decoded part = export_with(options, &stats);
  ASSERT_EQ(part.ops.size(), 3u);
  EXPECT_EQ(part.ops.begin()->first, 3u);
  EXPECT_EQ(stats.flows, 0u) << "the record of #3 and #5 is outside";

  options.from_seq = 100;
  std::ostringstream out;
  auto none = export_trace(in_, out, ExportFormat::kPerfetto, options);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().describe(), in_ + ": no op from seq 100 to seq 14 to export");
}

TEST_F(PerfettoExport, AnyInputEncodingGivesTheSameBytes) {
  EXPECT_EQ(stats_.bytes, bytes_.size());
  for (const char* name : {"in.pbtxt", "in.json"}) {
    const std::string path = dir_.path(name);
    ASSERT_TRUE(save_trace(scenario_.trace, path).ok());
    std::ostringstream out;
    auto stats = export_perfetto(path, out);
    ASSERT_TRUE(stats.ok()) << stats.error().describe();
    EXPECT_EQ(out.str(), bytes_) << name;
  }
}

TEST_F(PerfettoExport, EveryOpKindNestsAndFlowsMatchTheTrace) {
  const v1::Chunk trace = testing::standard_trace(3);
  const std::string in = dir_.path("standard.rtrace");
  testing::write_chunked(trace, in, /*compress=*/false, 7);
  std::ostringstream out;
  auto stats = export_perfetto(in, out);
  ASSERT_TRUE(stats.ok()) << stats.error().describe();
  const Decoded d = decode(out.str());
  EXPECT_EQ(d.ops.size(), static_cast<size_t>(trace.ops_size()));
  std::map<uint64_t, uint64_t> source;
  std::set<std::pair<uint64_t, uint64_t>> pairs;
  for (const auto& [seq, s] : d.ops)
    for (uint64_t id : s.flow_ids) source[id] = seq;
  for (const auto& [seq, s] : d.ops)
    for (uint64_t id : s.terminating) pairs.insert({source.at(id), seq});
  EXPECT_EQ(pairs, testing::record_wait_pairs(trace));
  EXPECT_EQ(stats->flows, pairs.size());
}

TEST_F(PerfettoExport, OutOfRangeHostTimesAreMovedNotOverflowed) {
  TraceBuilder b;
  b.mark("before the origin");
  b.last_op().set_host_start(-5000);
  b.last_op().set_host_end(-3000);
  b.mark("everything");
  b.last_op().set_host_start(std::numeric_limits<int64_t>::min());
  b.last_op().set_host_end(std::numeric_limits<int64_t>::max());
  const std::string in = dir_.path("extreme.pbtxt");
  ASSERT_TRUE(save_trace(b.take(), in).ok());
  std::ostringstream out;
  auto stats = export_perfetto(in, out);
  ASSERT_TRUE(stats.ok()) << stats.error().describe();
  const Decoded d = decode(out.str());
  ASSERT_EQ(d.ops.size(), 2u);
  EXPECT_EQ(d.ops.at(1).start, 0u);
  EXPECT_EQ(d.ops.at(1).end, 2000u);
  EXPECT_EQ(d.ops.at(1).args.at("shifted_ns").uint_value(), 5000u);
  EXPECT_EQ(d.ops.at(2).start, 0u);
  EXPECT_EQ(d.ops.at(2).end, static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
  EXPECT_NE(d.ops.at(2).track, d.ops.at(1).track) << "overlapping: on an overlap track, not moved";
}

TEST_F(PerfettoExport, ATruncatedInputIsAnErrorWithItsOffsetAndLeavesNoOutput) {
  const v1::Chunk trace = testing::standard_trace(2);
  const std::string in = dir_.path("cut.rtrace");
  const auto ends = testing::write_chunked(trace, in, /*compress=*/true, 5);
  testing::write_bytes(in, testing::read_bytes(in).substr(0, ends[2] + 10));
  const std::string out = dir_.path("cut.pftrace");
  auto stats = export_perfetto(in, out);
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error().file, in);
  EXPECT_EQ(stats.error().offset, ends[2]);
  EXPECT_FALSE(testing::fs::exists(out));
}

TEST_F(PerfettoExport, AMissingInputIsAnError) {
  auto stats = export_perfetto(dir_.path("nope.rtrace"), dir_.path("nope.pftrace"));
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.error().describe().find("nope.rtrace"), std::string::npos) << stats.error().describe();
}

}  // namespace
}  // namespace racetrack
