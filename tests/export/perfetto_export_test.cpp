// `export_perfetto`: the file is decoded with our own copy of Perfetto's
// schema and replayed the way trace_processor does (packets sorted by
// timestamp, stably; on each track a BEGIN opens a slice and an END closes
// the innermost one), then checked against the scenario.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>

#include "export_scenario.h"
#include "perfetto_trace.pb.h"
#include "racetrack/traces/describe.h"
#include "racetrack/traces/export.h"
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
  std::string name;
  std::vector<std::string> categories;
  std::map<std::string, pf::DebugAnnotation> args;
  std::vector<uint64_t> flows_out, flows_in;
};

struct Decoded {
  std::map<uint64_t, Track> tracks;
  std::map<uint64_t, DecodedSlice> slices;  // by the "seq" annotation
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
      out.tracks[d.uuid()] = {d.name(), d.parent_uuid()};
    }
    if (p.has_track_event()) events.push_back(&p);
  }
  std::stable_sort(events.begin(), events.end(), [](const pf::TracePacket* a, const pf::TracePacket* b) {
    return a->timestamp() < b->timestamp();
  });
  std::map<uint64_t, std::vector<DecodedSlice>> open;  // by track
  for (const pf::TracePacket* p : events) {
    const pf::TrackEvent& e = p->track_event();
    EXPECT_TRUE(out.tracks.count(e.track_uuid())) << "event on an undescribed track";
    auto& stack = open[e.track_uuid()];
    if (e.type() == pf::TrackEvent::TYPE_SLICE_BEGIN) {
      DecodedSlice s;
      s.track = e.track_uuid();
      s.start = p->timestamp();
      s.name = e.name();
      s.categories.assign(e.categories().begin(), e.categories().end());
      for (const pf::DebugAnnotation& a : e.debug_annotations()) s.args[a.name()] = a;
      s.flows_out.assign(e.flow_ids().begin(), e.flow_ids().end());
      s.flows_in.assign(e.terminating_flow_ids().begin(), e.terminating_flow_ids().end());
      EXPECT_TRUE(stack.empty()) << "slice '" << s.name << "' opens inside '" << stack.back().name
                                 << "': stream and thread lanes must not overlap";
      stack.push_back(std::move(s));
    } else {
      EXPECT_EQ(e.type(), pf::TrackEvent::TYPE_SLICE_END);
      if (stack.empty()) {
        ADD_FAILURE() << "END without an open slice at " << p->timestamp();
        continue;
      }
      DecodedSlice s = std::move(stack.back());
      stack.pop_back();
      s.end = p->timestamp();
      const uint64_t seq = s.args.count("seq") ? s.args.at("seq").uint_value() : 0;
      EXPECT_FALSE(out.slices.count(seq)) << "two slices for seq " << seq;
      out.slices[seq] = std::move(s);
    }
  }
  for (const auto& [track, stack] : open) EXPECT_TRUE(stack.empty()) << "unclosed slice on track " << track;
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

  uint64_t uuid_named(const std::string& name) const {
    for (const auto& [uuid, track] : decoded_.tracks)
      if (track.name == name) return uuid;
    ADD_FAILURE() << "no track named '" << name << "'";
    return 0;
  }

  testing::TempDir dir_;
  testing::ExportScenario scenario_;
  std::string in_, out_, bytes_;
  ExportStats stats_;
  Decoded decoded_;
  TraceTables tables_;
};

TEST_F(PerfettoExport, OneTrackPerStreamUnderItsDeviceAndOnePerHostThread) {
  const uint64_t gpu0 = uuid_named("GPU 0: Test GPU");
  const uint64_t gpu1 = uuid_named("GPU 1: Other GPU");
  const uint64_t host = uuid_named("Host box (pid 77)");
  EXPECT_EQ(decoded_.tracks[gpu0].parent, 0u);
  EXPECT_EQ(decoded_.tracks[gpu1].parent, 0u);
  EXPECT_EQ(decoded_.tracks[host].parent, 0u);
  EXPECT_EQ(decoded_.tracks[uuid_named("compute")].parent, gpu0);
  EXPECT_EQ(decoded_.tracks[uuid_named("offload (d2h)")].parent, gpu0);
  EXPECT_EQ(decoded_.tracks[uuid_named("stream 3 (h2d)")].parent, gpu1);
  EXPECT_EQ(decoded_.tracks[uuid_named("spare (other)")].parent, gpu0) << "a stream without ops has a track";
  EXPECT_EQ(decoded_.tracks[uuid_named("main (tid 1001)")].parent, host);
  EXPECT_EQ(decoded_.tracks[uuid_named("worker (tid 1002)")].parent, host);
  EXPECT_EQ(decoded_.tracks[uuid_named("idle (tid 1003)")].parent, host)
      << "a thread without ops has a track";
  EXPECT_EQ(decoded_.tracks.size(), 3u + 4u + 3u);
}

TEST_F(PerfettoExport, OneSlicePerOpWithItsNameLaneAndSpan) {
  ASSERT_EQ(decoded_.slices.size(), static_cast<size_t>(scenario_.trace.ops_size()));
  EXPECT_EQ(stats_.slices, decoded_.slices.size());
  std::map<std::pair<bool, uint32_t>, uint64_t> lane_track;
  for (const v1::Op& op : scenario_.trace.ops()) {
    SCOPED_TRACE("seq " + std::to_string(op.seq()));
    ASSERT_TRUE(decoded_.slices.count(op.seq()));
    const DecodedSlice& s = decoded_.slices.at(op.seq());
    const testing::ExpectedSlice& want = scenario_.slices.at(op.seq());
    EXPECT_EQ(s.name, op_title(op, tables_));
    EXPECT_EQ(s.categories, std::vector<std::string>{std::string(op_kind_name(op_kind(op)))});
    EXPECT_EQ(s.start, static_cast<uint64_t>(want.start));
    EXPECT_EQ(s.end, static_cast<uint64_t>(want.end));
    // Every op of one lane is on one track, and that track is the lane's.
    auto [it, first] = lane_track.try_emplace({want.on_stream, want.lane}, s.track);
    EXPECT_EQ(s.track, it->second);
    const std::string lane_name = want.on_stream
                                      ? tables_.stream_label(want.lane)
                                      : std::string(tables_.string(tables_.thread(want.lane)->name()));
    EXPECT_EQ(decoded_.tracks[s.track].name.rfind(lane_name, 0), 0u)
        << decoded_.tracks[s.track].name << " is not the lane of " << lane_name;
  }
  EXPECT_EQ(decoded_.slices.at(14).name, "kernel k\"q\\\n");
}

TEST_F(PerfettoExport, AnnotationsCarryTheOpDetails) {
  const auto& copy = decoded_.slices.at(4).args;  // memcpy offload P <- Y, device-timed
  EXPECT_EQ(copy.at("bytes").uint_value(), 4096u);
  EXPECT_EQ(copy.at("direction").string_value(), "D2H");
  EXPECT_EQ(copy.at("src").pointer_value(), scenario_.trace.regions(1).base());
  EXPECT_EQ(copy.at("dst").pointer_value(), scenario_.trace.regions(2).base());
  EXPECT_TRUE(copy.at("async").bool_value());
  EXPECT_EQ(copy.at("timing").string_value(), "device");
  EXPECT_EQ(copy.at("role").string_value(), "d2h");
  EXPECT_EQ(copy.at("thread").string_value(), "main (tid 1001)");
  EXPECT_FALSE(copy.count("shifted_ns"));

  const auto& record = decoded_.slices.at(2).args;  // host times moved after the kernel
  EXPECT_EQ(record.at("timing").string_value(), "host");
  EXPECT_EQ(record.at("shifted_ns").uint_value(), 5000u);
  EXPECT_EQ(record.at("event").string_value(), "e_off");
  EXPECT_EQ(decoded_.slices.at(8).args.at("record_seq").uint_value(), 7u);

  EXPECT_EQ(decoded_.slices.at(13).args.at("nvtx").string_value(), "step");
  EXPECT_EQ(decoded_.slices.at(11).args.at("stream").string_value(), "offload");
  EXPECT_EQ(decoded_.slices.at(1).args.at("accesses").string_value(),
            "R X 0x7f0000000000 4.0 KiB; W Y 0x7f0000001000 4.0 KiB");
}

TEST_F(PerfettoExport, OneFlowPerRecordWaitPairFromTheRecordToTheWait) {
  std::map<uint64_t, uint64_t> source, target;  // flow id -> seq
  for (const auto& [seq, s] : decoded_.slices) {
    for (uint64_t id : s.flows_out) EXPECT_TRUE(source.emplace(id, seq).second) << "flow " << id << " forks";
    for (uint64_t id : s.flows_in)
      EXPECT_TRUE(target.emplace(id, seq).second) << "flow " << id << " ends twice";
  }
  std::set<std::pair<uint64_t, uint64_t>> pairs;
  for (const auto& [id, from] : source) {
    ASSERT_TRUE(target.count(id)) << "flow " << id << " never ends";
    pairs.insert({from, target.at(id)});
    // trace_processor binds a flow only if its source starts first.
    EXPECT_LE(decoded_.slices.at(from).start, decoded_.slices.at(target.at(id)).start);
  }
  EXPECT_EQ(source.size(), target.size());
  EXPECT_EQ(pairs, scenario_.flows);
  EXPECT_EQ(stats_.flows, scenario_.flows.size());
  EXPECT_TRUE(decoded_.slices.at(9).flows_out.empty()) << "a record nobody waits for has no flow";
  EXPECT_TRUE(decoded_.slices.at(10).flows_in.empty()) << "a wait with no record has no flow";
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
  EXPECT_EQ(d.slices.size(), static_cast<size_t>(trace.ops_size()));
  std::map<uint64_t, uint64_t> source;
  std::set<std::pair<uint64_t, uint64_t>> pairs;
  for (const auto& [seq, s] : d.slices)
    for (uint64_t id : s.flows_out) source[id] = seq;
  for (const auto& [seq, s] : d.slices)
    for (uint64_t id : s.flows_in) pairs.insert({source.at(id), seq});
  EXPECT_EQ(pairs, testing::record_wait_pairs(trace));
  EXPECT_EQ(stats->flows, pairs.size());
}

TEST_F(PerfettoExport, OutOfRangeHostTimesAreClampedNotOverflowed) {
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
  ASSERT_EQ(d.slices.size(), 2u);
  EXPECT_EQ(d.slices.at(1).start, 0u);
  EXPECT_EQ(d.slices.at(1).end, 2000u);
  EXPECT_EQ(d.slices.at(1).args.at("shifted_ns").uint_value(), 5000u);
  EXPECT_EQ(d.slices.at(2).start, 2000u);
  EXPECT_EQ(d.slices.at(2).end, static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
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
