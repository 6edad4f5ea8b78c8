// Version stamps per granule, shared by every replay backend: which granules
// an op's reads check and its writes stamp, and how granules found holding
// the wrong stamp map back to traced bytes (docs/replay.md). Plain structs
// only, so the CUDA backend's .cu file can include this header too.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace racetrack::des {
struct Program;
struct Mismatch;
class SequentialReference;
}  // namespace racetrack::des

namespace racetrack::replay {

class ArenaPlan;

// A granule's stamp names the op that wrote it last: its index + 1; 0 is
// the contents before the trace (des::kInitial as a writer).
inline uint32_t stamp_of(uint32_t writer) {
  return writer == UINT32_MAX ? 0 : writer + 1;
}
inline uint32_t writer_of(uint32_t stamp) {
  return stamp == 0 ? UINT32_MAX : stamp - 1;
}

// A read's expectation: granules [g0, g1) of `space`'s arena must hold
// `expected` (a stamp) when op `reader` starts. [lo, hi) are the traced
// bytes the expectation covers, for reports.
struct GranuleCheck {
  uint32_t reader = 0;
  uint32_t expected = 0;
  uint32_t space = 0;
  uint64_t lo = 0, hi = 0;
  uint64_t g0 = 0, g1 = 0;
};

// A write: granules [g0, g1) of `space`'s arena get the writer's stamp.
struct GranuleWrite {
  uint32_t space = 0;
  uint64_t g0 = 0, g1 = 0;
  uint32_t stamp = 0;  // 0: the writing op's own; else an external agent's (its declaration's)
};

// One granule of check number `check` that held stamp `observed`.
struct GranuleMismatch {
  uint32_t check = 0;
  uint32_t observed = 0;
  uint64_t granule = 0;
};

// Granules whose start lies in the arena image of traced [lo, hi).
std::pair<uint64_t, uint64_t> granule_range(const ArenaPlan& plan, uint32_t space, uint64_t lo, uint64_t hi);

// Appends the checks of op `op`'s reads (one per stretch of bytes the
// sequential run leaves to one writer) and the granules its writes stamp.
void add_read_checks(const des::Program& program, const ArenaPlan& plan,
                     const des::SequentialReference& reference, uint32_t op, std::vector<GranuleCheck>& out);
void add_writes(const des::Program& program, const ArenaPlan& plan, uint32_t op,
                std::vector<GranuleWrite>& out);

// Appends granule g of `seen` (a mismatch whose lo/hi are the traced range
// the granule belongs to) in traced bytes, merged with the last entry of
// `out` when it continues it: exact unscaled, within 1/scale bytes scaled.
void add_granule_mismatch(const ArenaPlan& plan, const des::Mismatch& seen, uint64_t g,
                          std::vector<des::Mismatch>& out);

// A log of granule mismatches in any order (as threads or a GPU append
// them) as mismatches in traced bytes, adjacent granules merged.
void mismatches_from_log(const ArenaPlan& plan, const std::vector<GranuleCheck>& checks,
                         std::vector<GranuleMismatch> log, std::vector<des::Mismatch>& out);

// After a run: every granule must hold its last writer in submission order,
// as in the sequential run (a WAW shows here when nothing reads the bytes
// afterwards); mismatches have no reader (des::kInitial).
using StampReader = std::function<uint32_t(uint32_t space, uint64_t granule)>;
void add_final_mismatches(const des::Program& program, const ArenaPlan& plan, const StampReader& stamp_at,
                          std::vector<des::Mismatch>& out);

// Orders a run's mismatches by reader, then address.
void sort_mismatches(std::vector<des::Mismatch>& mismatches);

}  // namespace racetrack::replay
