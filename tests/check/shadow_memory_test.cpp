// The flat shadow memory against a byte-by-byte model of the same rules:
// random accesses from four agents with random clocks, over ranges that make
// hundreds of segments (several pages), must report exactly the model's
// conflicting (side, byte) pairs; ordered writes merge a buffer back into
// one segment; and the sides it still holds are the model's.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "racetrack/race/shadow_memory.h"

namespace racetrack::race {
namespace {

using ByteConflicts = std::set<std::pair<uint32_t, uint64_t>>;  // (side, byte)

// Per byte, the entries the rules keep.
class ByteModel {
 public:
  explicit ByteModel(uint64_t bytes) : bytes_(bytes) {}
  ByteConflicts access(uint64_t lo, uint64_t hi, const ShadowEntry& entry, const hb::OpOrder& order) {
    ByteConflicts out;
    for (uint64_t b = lo; b < hi; ++b) {
      std::vector<ShadowEntry>& held = bytes_[b];
      std::vector<ShadowEntry> kept;
      for (const ShadowEntry& e : held) {
        const bool ordered = order.covers(e.epoch(), e.node);
        if (e.side != entry.side && (e.writes || entry.writes) && !ordered) out.insert({e.side, b});
        if (!ordered || !(entry.writes || !e.writes)) kept.push_back(e);
      }
      kept.push_back(entry);
      held = std::move(kept);
    }
    return out;
  }
  std::set<uint32_t> sides() const {
    std::set<uint32_t> out;
    for (const auto& held : bytes_)
      for (const ShadowEntry& e : held) out.insert(e.side);
    return out;
  }

 private:
  std::vector<std::vector<ShadowEntry>> bytes_;
};

ByteConflicts bytes_of(const std::vector<Conflict>& conflicts) {
  ByteConflicts out;
  for (const Conflict& c : conflicts)
    for (uint64_t b = c.lo; b < c.hi; ++b) out.insert({c.side, b});
  return out;
}

TEST(ShadowMemory, MatchesAByteModelOverRandomAccesses) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    constexpr uint64_t kBytes = 4096;
    constexpr uint32_t kAgents = 4;
    ShadowMemory shadow;
    ByteModel model(kBytes);
    std::vector<hb::Tick> ticks(kAgents, 0);
    size_t most_segments = 0;
    for (uint32_t side = 1; side <= 3000; ++side) {
      const uint32_t agent = static_cast<uint32_t>(rng() % kAgents);
      hb::VectorClock clock;
      // Ordered after a random earlier point of each agent (often all of it).
      for (uint32_t a = 0; a < kAgents; ++a)
        if (ticks[a]) clock.set(a, rng() % 3 ? ticks[a] : rng() % (ticks[a] + 1));
      const hb::Tick tick = ++ticks[agent];
      clock.set(agent, tick);
      hb::OpOrder order;
      order.epoch = {agent, tick};
      order.clock = &clock;
      const uint64_t size = rng() % 8 == 0 ? 1 + rng() % kBytes : 1 + rng() % 48;
      const uint64_t lo = rng() % kBytes;
      const uint64_t hi = std::min(kBytes, lo + size);
      const uint32_t mode = static_cast<uint32_t>(rng() % 3);  // read, write, both
      const ShadowEntry entry(order.epoch, 0, side, mode != 1, mode != 0);
      std::vector<Conflict> conflicts;
      shadow.access(0, lo, hi, entry, order, conflicts);
      ASSERT_EQ(bytes_of(conflicts), model.access(lo, hi, entry, order)) << "seed " << seed << " access " << side;
      most_segments = std::max(most_segments, shadow.segment_count());
    }
    EXPECT_GT(most_segments, 2 * ShadowMemory::kPageSegments) << "the test must span several pages";
    std::vector<bool> used;
    shadow.referenced_sides(used);
    std::set<uint32_t> held;
    for (uint32_t s = 0; s < used.size(); ++s)
      if (used[s]) held.insert(s);
    EXPECT_EQ(held, model.sides()) << "seed " << seed;
  }
}

TEST(ShadowMemory, OrderedWritesMergeABufferIntoOneSegment) {
  ShadowMemory shadow;
  hb::VectorClock clock;
  std::vector<Conflict> conflicts;
  // One stream writes 200 pieces of a buffer, then the whole buffer.
  for (uint32_t k = 0; k < 200; ++k) {
    clock.set(0, k + 1);
    hb::OpOrder order{{0, k + 1}, &clock};
    shadow.access(1, 0x1000 + 64 * k, 0x1000 + 64 * (k + 1), ShadowEntry({0, k + 1}, 0, k, false, true), order,
                  conflicts);
  }
  EXPECT_EQ(shadow.segment_count(), 200u);
  clock.set(0, 201);
  hb::OpOrder order{{0, 201}, &clock};
  shadow.access(1, 0x1000, 0x1000 + 64 * 200, ShadowEntry({0, 201}, 0, 500, false, true), order, conflicts);
  EXPECT_TRUE(conflicts.empty());
  EXPECT_EQ(shadow.segment_count(), 1u);
  EXPECT_EQ(shadow.entry_count(), 1u);
}

TEST(ShadowMemory, AnUnorderedWholeRangeAccessConflictsWithEveryPiece) {
  ShadowMemory shadow;
  std::vector<Conflict> conflicts;
  hb::VectorClock writer;
  for (uint32_t k = 0; k < 300; ++k) {
    writer.set(0, k + 1);
    hb::OpOrder order{{0, k + 1}, &writer};
    shadow.access(1, 100 * k, 100 * k + 50, ShadowEntry({0, k + 1}, 0, k, false, true), order, conflicts);
  }
  ASSERT_TRUE(conflicts.empty());
  hb::VectorClock reader;
  reader.set(1, 1);
  hb::OpOrder order{{1, 1}, &reader};
  shadow.access(1, 0, 30000, ShadowEntry({1, 1}, 0, 1000, true, false), order, conflicts);
  ASSERT_EQ(conflicts.size(), 300u);
  std::set<uint32_t> sides;
  for (const Conflict& c : conflicts) {
    sides.insert(c.side);
    EXPECT_EQ(c.hi - c.lo, 50u);
    EXPECT_EQ(c.lo, 100u * c.side);
  }
  EXPECT_EQ(sides.size(), 300u);
}

}  // namespace
}  // namespace racetrack::race
