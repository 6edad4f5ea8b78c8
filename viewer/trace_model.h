// The trace as the timeline needs it, compact enough for ten million ops:
// per lane, struct-of-arrays of boxes (start, end, seq, name id, category),
// about 29 bytes per op, and what the details panel shows of each region.
// These arrays spill to temporary files once large, so the resident memory
// does not grow with the trace (a frame binary-searches the few boxes it
// draws; docs/viewer.md). Everything else about an op (accesses,
// arguments) is fetched from the file on demand (OpFetcher), through the
// chunk index kept here.
#pragma once

#include <QString>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "op_style.h"
#include "racetrack/traces/spill_array.h"
#include "racetrack/traces/tables.h"
#include "racetrack/traces/timeline.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::viewer {

enum class LaneType : uint8_t { kStream, kThread, kNvtx };

// One row of the timeline. Boxes are in seq order and a lane is serial, so
// `start` and `end` are both non-decreasing: binary search finds the boxes
// of a time window.
struct Lane {
  LaneType type = LaneType::kStream;
  uint32_t entity = 0;  // stream id, or host thread id (thread and NVTX lanes)
  uint32_t depth = 0;   // NVTX nesting level
  uint32_t group = 0;   // index in TraceModel::groups()
  QString label;
  SpillArray<int64_t> start, end;
  SpillArray<uint64_t> seq;   // NVTX lanes: the range's first op
  SpillArray<uint32_t> name;  // trace string id; NVTX lanes: TraceModel::nvtx_name id
  SpillArray<OpCategory> category;
  OpCategory usual = OpCategory::kKernel;  // the category that covers most time: colour of merged runs

  size_t size() const { return start.size(); }
  // Index of the first box that ends after t.
  size_t first_ending_after(int64_t t) const;
  // Index of the first box that starts at or after t.
  size_t first_starting_at(int64_t t) const;
};

// A device's streams, or the host's threads and NVTX lanes.
struct LaneGroup {
  QString label;
  std::vector<uint32_t> lanes;
};

// A box: lane index and position in the lane.
struct OpRef {
  uint32_t lane = 0;
  uint32_t index = 0;
  bool operator==(const OpRef&) const = default;
};

// Event record -> stream wait, the wait bound to the latest record of the
// same event before it (as `racetrack export` draws flows).
struct Dependency {
  OpRef record, wait;
};

// A region as the details panel shows it: 48 bytes where its message
// takes about 120.
struct RegionRecord {
  uint64_t base = 0, size = 0;
  uint64_t alloc_seq = 0, free_seq = 0;  // 0: not recorded
  uint32_t id = 0;
  uint32_t label = 0;  // string id
  uint32_t device = 0;
  v1::AddressSpace space = v1::SPACE_DEVICE;
  v1::RegionOrigin origin = v1::ORIGIN_UNKNOWN;
};

// Where to find a binary file's chunks again.
struct ChunkEntry {
  uint64_t offset = 0;
  uint64_t first_seq = 0;
};

class TraceModel {
 public:
  const std::string& path() const { return path_; }
  Encoding encoding() const { return encoding_; }
  uint64_t file_size() const { return file_size_; }
  const TraceTables& tables() const { return tables_; }
  const std::vector<Lane>& lanes() const { return lanes_; }
  const std::vector<LaneGroup>& groups() const { return groups_; }
  // Sorted by the wait's start time.
  const SpillArray<Dependency>& dependencies() const { return dependencies_; }
  // By id - 1 (region ids are dense from 1).
  const SpillArray<RegionRecord>& regions() const { return regions_; }
  const RegionRecord* region(uint32_t id) const {
    return id >= 1 && id <= regions_.size() ? &regions_[id - 1] : nullptr;
  }
  // Its label, else "region N".
  std::string region_label(uint32_t id) const;
  // The largest wait start - record end over all dependencies (bounds the
  // search for arrows that cross a window).
  int64_t longest_dependency_ns() const { return longest_dependency_ns_; }
  const std::vector<ChunkEntry>& chunks() const { return chunks_; }
  uint64_t op_count() const { return op_count_; }
  int64_t start_ns() const { return start_ns_; }
  int64_t end_ns() const { return end_ns_; }

  // The op's box on its stream or thread lane.
  std::optional<OpRef> find(uint64_t seq) const;
  uint64_t seq(OpRef ref) const { return lanes_[ref.lane].seq[ref.index]; }
  int64_t start(OpRef ref) const { return lanes_[ref.lane].start[ref.index]; }
  int64_t end(OpRef ref) const { return lanes_[ref.lane].end[ref.index]; }
  OpCategory category(OpRef ref) const { return lanes_[ref.lane].category[ref.index]; }

  // What a box shows: "gemm", "D2H", "record e_off", an NVTX range's name.
  QString label(OpRef ref) const;
  // What search matches: "kernel void gemm<...>(...)", "memcpy D2H", ...
  QString search_text(OpCategory category, uint32_t name) const;
  std::string_view nvtx_name(uint32_t id) const { return id < nvtx_names_.size() ? nvtx_names_[id] : ""; }
  // The dependencies an op takes part in.
  std::vector<Dependency> dependencies_of(OpRef ref) const;

  // Bytes held by the model (lanes, dependencies, tables are estimated).
  uint64_t memory_bytes() const;

 private:
  friend class TraceModelBuilder;
  std::string path_;
  Encoding encoding_ = Encoding::kBinary;
  uint64_t file_size_ = 0;
  TraceTables tables_;
  std::vector<Lane> lanes_;
  std::vector<LaneGroup> groups_;
  SpillArray<Dependency> dependencies_;
  SpillArray<RegionRecord> regions_;
  int64_t longest_dependency_ns_ = 0;
  std::vector<ChunkEntry> chunks_;
  std::vector<std::string> nvtx_names_;  // NVTX path components; id 0 unused
  uint64_t op_count_ = 0;
  int64_t start_ns_ = 0, end_ns_ = 0;
};

// Builds a model chunk by chunk (the loader feeds it from a TraceSource).
class TraceModelBuilder {
 public:
  TraceModelBuilder(std::string path, Encoding encoding, uint64_t file_size);
  ~TraceModelBuilder();
  // `offset`: where the chunk starts in a binary file.
  void add_chunk(const v1::Chunk& chunk, uint64_t offset);
  std::unique_ptr<TraceModel> finish();

 private:
  struct NvtxState;
  uint32_t stream_lane(uint32_t stream);
  uint32_t thread_lane(uint32_t thread);
  uint32_t add_lane(LaneType type, uint32_t entity, uint32_t depth);
  void add_op(const v1::Op& op);
  void add_nvtx(const v1::Op& op);
  uint32_t op_name(const v1::Op& op) const;
  const std::vector<uint32_t>& nvtx_components(uint32_t path);
  void arrange_groups();

  std::unique_ptr<TraceModel> model_;
  OpPlacer placer_;
  std::unordered_map<uint32_t, uint32_t> stream_lanes_, thread_lanes_;
  std::unordered_map<uint32_t, OpRef> latest_record_;               // by event
  std::unordered_map<uint32_t, std::unique_ptr<NvtxState>> nvtx_;   // by thread
  std::unordered_map<uint32_t, std::vector<uint32_t>> nvtx_paths_;  // path string id -> components
  std::unordered_map<std::string, uint32_t> nvtx_ids_;
  std::vector<std::array<uint64_t, kCategoryCount>> category_time_;  // ns per category, by lane
  bool any_op_ = false;
};

// Called after each chunk with (bytes read, total bytes); returning false
// stops the load (a newer file was opened).
using LoadProgress = std::function<bool(uint64_t, uint64_t)>;

// Reads a whole trace into a model. A stopped load returns an error that
// says so.
Result<std::unique_ptr<TraceModel>> load_model(const std::string& path, const LoadProgress& progress = {});

}  // namespace racetrack::viewer
