// Where an export puts an op's box, and when (docs/export.md, "Times" and
// "Overlap tracks"). Recorded times are kept: a device op with device times
// gets exactly them, a host op exactly its host call's. Only an op on a
// stream without device times is placed by estimate, where its stream had
// got to. Boxes that overlap on one lane are never moved: they go on the
// lane's overlap tracks, because Perfetto needs the slices of one track to
// nest.
#pragma once

#include <cstdint>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "racetrack.pb.h"

namespace racetrack::exporting {

enum class TrackKind : uint8_t { kStream, kThread, kNvtx, kHazards };

struct Track {
  TrackKind kind = TrackKind::kThread;
  uint32_t id = 0;   // stream or host-thread id (NVTX: the thread); 0 for hazards
  uint32_t sub = 0;  // 0: the lane itself; k >= 1: its k-th overlap track
  bool operator==(const Track&) const = default;
  // Unique per track, for maps.
  uint64_t key() const { return (uint64_t{static_cast<uint8_t>(kind)} << 56) | (uint64_t{sub} << 32) | id; }
};

enum class Timing : uint8_t {
  kDevice,     // the op's device_start..device_end
  kHost,       // the op's host_start..host_end (an op on a host thread)
  kEstimated,  // a stream op without device times, placed where its stream was
};

struct Placement {
  Track track;
  int64_t start_ns = 0;  // >= 0
  int64_t end_ns = 0;    // >= start_ns
  Timing timing = Timing::kHost;
  uint64_t shifted_ns = 0;    // how far start_ns is after the recorded start
  bool opened_track = false;  // track.sub is new: this is its first box
};

// The tracks of one lane: a box goes on one where every earlier box has
// ended by its start (the lane itself when it can), else on a new one.
class OverlapPacker {
 public:
  uint32_t place(int64_t start, int64_t end, bool& opened);

 private:
  std::vector<int64_t> ends_;                    // per track: the latest end
  std::set<std::pair<int64_t, uint32_t>> free_;  // (end, track) of tracks 1..n
};

// Places ops given in seq order. Every op moves the stream positions; only
// ops that are exported (`exported`) take room on a track.
class OpPlacement {
 public:
  Placement place(const v1::Op& op, bool exported);

 private:
  Placement estimate(const v1::Op& op);
  std::unordered_map<uint32_t, int64_t> stream_end_;     // stream -> latest end of its boxes
  std::unordered_map<uint32_t, int64_t> record_at_;      // event -> start of its latest record
  std::unordered_map<uint64_t, OverlapPacker> packers_;  // by Track::key of the lane
};

}  // namespace racetrack::exporting
