// `export_ranks`: several rank traces in one Perfetto trace (docs/distributed.md),
// decoded back: a process per rank, every track unique and under its rank's
// process, every event on a declared track, one packet sequence per rank, and
// each rank's times shifted by its origin's distance from the earliest.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "perfetto_trace.pb.h"
#include "racetrack/traces/export.h"
#include "racetrack/traces/synth.h"
#include "racetrack/traces/trace_io.h"
#include "test_support.h"

namespace racetrack {
namespace {

namespace pf = ::racetrack::perfetto;
using testing::TempDir;

pf::Trace decode(const std::string& bytes) {
  pf::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(bytes));
  return trace;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

uint64_t earliest(const pf::Trace& t, uint32_t sequence) {
  uint64_t out = UINT64_MAX;
  for (const pf::TracePacket& p : t.packet())
    if (p.has_track_event() && (!sequence || p.trusted_packet_sequence_id() == sequence))
      out = std::min<uint64_t>(out, p.timestamp());
  return out;
}

TEST(ExportRanks, AProcessPerRankWithItsOwnTracksAndAlignedClocks) {
  TempDir dir;
  std::vector<std::string> paths;
  for (int rank = 0; rank < 3; ++rank) {
    SynthOptions o;
    o.seed = 1 + static_cast<uint64_t>(rank);
    o.target_ops = 6000;
    o.layers = 2;
    o.world_size = 3;
    o.rank = rank;
    o.host = "node0";
    const std::string synthesized = dir.path("synth-" + std::to_string(rank) + ".rtrace");
    auto writer = TraceWriter::create(synthesized);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(synthesize(o, *writer).ok());
    ASSERT_TRUE(writer->close().ok());
    // Rank 2 started 5 ms after the others.
    auto trace = load_trace(synthesized);
    ASSERT_TRUE(trace.ok());
    if (rank == 2) trace->mutable_header()->set_time_origin_ns(trace->header().time_origin_ns() + 5'000'000);
    paths.push_back(dir.path("rank-" + std::to_string(rank) + ".rtrace"));
    ASSERT_TRUE(save_trace(*trace, paths.back()).ok());
  }
  std::vector<RankAlignment> alignment;
  const std::string out = dir.path("run.pftrace");
  auto stats = export_ranks(paths, std::vector<ExportOptions>(3), out, &alignment);
  ASSERT_TRUE(stats.ok()) << stats.error().describe();
  ASSERT_EQ(alignment.size(), 3u);
  EXPECT_EQ(alignment[0].offset_ns, 0);
  EXPECT_EQ(alignment[1].offset_ns, 0);
  EXPECT_EQ(alignment[2].offset_ns, 5'000'000);
  EXPECT_EQ(alignment[2].rank, 2);
  EXPECT_EQ(alignment[2].host, "node0");

  const pf::Trace merged = decode(read_file(out));
  std::map<uint64_t, uint64_t> parent;  // track uuid -> parent uuid
  std::map<uint64_t, uint32_t> sequence_of;
  std::map<int32_t, std::string> processes;  // pid -> name
  for (const pf::TracePacket& p : merged.packet()) {
    if (!p.has_track_descriptor()) continue;
    const pf::TrackDescriptor& d = p.track_descriptor();
    EXPECT_TRUE(parent.emplace(d.uuid(), d.parent_uuid()).second)
        << "track " << d.name() << " declared twice";
    sequence_of[d.uuid()] = p.trusted_packet_sequence_id();
    if (d.has_process()) processes[d.process().pid()] = d.process().process_name();
  }
  EXPECT_EQ(processes, (std::map<int32_t, std::string>{
                           {1, "rank 0 on node0"}, {2, "rank 1 on node0"}, {3, "rank 2 on node0"}}));
  // Every track hangs under its own rank's process.
  for (const auto& [uuid, up] : parent) {
    uint64_t root = uuid;
    while (parent.at(root)) {
      ASSERT_TRUE(parent.count(parent.at(root))) << "a parent that was never declared";
      EXPECT_EQ(sequence_of.at(parent.at(root)), sequence_of.at(uuid)) << "a parent of another rank";
      root = parent.at(root);
    }
    EXPECT_TRUE(processes.count(static_cast<int32_t>(sequence_of.at(root))))
        << "a track outside the processes";
  }
  std::set<uint32_t> sequences;
  for (const pf::TracePacket& p : merged.packet()) {
    sequences.insert(p.trusted_packet_sequence_id());
    if (p.has_track_event()) {
      ASSERT_TRUE(parent.count(p.track_event().track_uuid())) << "an event on an undeclared track";
      EXPECT_EQ(sequence_of.at(p.track_event().track_uuid()), p.trusted_packet_sequence_id());
    }
  }
  EXPECT_EQ(sequences, (std::set<uint32_t>{1, 2, 3}));

  // Rank 2's times are its own, 5 ms later.
  std::ostringstream alone;
  ASSERT_TRUE(export_perfetto(paths[2], alone).ok());
  EXPECT_EQ(earliest(merged, 3), earliest(decode(alone.str()), 0) + 5'000'000);
}

}  // namespace
}  // namespace racetrack
