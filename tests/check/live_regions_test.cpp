// The resolver's search for the live region around an address (access.h):
// regions enter its maps at the next search, not when they are allocated,
// so a block freed before any search never does. These tests search only
// where the laziness could show: after frees, after more allocations than
// wait for a search, and at a base two live blocks share.
#include <gtest/gtest.h>

#include <vector>

#include "racetrack/race/access.h"
#include "racetrack/traces/builder.h"

namespace racetrack::check_test {
namespace {

// A resolver fed a whole trace's entities and lifetime ops, with no access
// resolved in between (so no search happens until the test's own).
struct Fed {
  TraceTables tables;
  race::AccessResolver resolver;

  explicit Fed(const v1::Chunk& trace) {
    tables.add(trace);
    resolver.add_entities(trace, tables);
    for (const v1::Op& op : trace.ops()) resolver.on_op(op);
  }
  uint32_t at(uint64_t address) const {
    return resolver.find_region(race::space_key(v1::SPACE_DEVICE, 0), address, address + 1);
  }
};

TEST(LiveRegions, ABlockFreedBeforeAnySearchIsNotFound) {
  TraceBuilder b;
  const StreamId s = b.stream("s", v1::ROLE_COMPUTE);
  const Buffer gone = b.alloc("gone", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, s);
  b.free(gone, s);
  const Buffer kept = b.alloc("kept", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, s);
  const Fed fed(b.take());
  EXPECT_EQ(fed.at(gone.base + 8), 0u);
  EXPECT_EQ(fed.at(kept.base + 8), kept.region);
}

// Allocations wait for a search only up to a bound; past it they enter the
// maps in order, and frees after that take them out again.
TEST(LiveRegions, MoreBlocksThanWaitForASearchAreAllFound) {
  TraceBuilder b;
  const StreamId s = b.stream("s", v1::ROLE_COMPUTE);
  std::vector<Buffer> blocks;
  for (int i = 0; i < 2500; ++i) blocks.push_back(b.alloc("block", 256, v1::ORIGIN_FRAMEWORK_BLOCK, s));
  for (size_t i = 0; i < blocks.size(); i += 3) b.free(blocks[i], s);
  const Fed fed(b.take());
  for (size_t i = 0; i < blocks.size(); ++i)
    ASSERT_EQ(fed.at(blocks[i].base + 100), i % 3 == 0 ? 0u : blocks[i].region) << "block " << i;
}

// A block allocated at the base of a live one and freed before any search
// leaves the older block findable (found eagerly, the map kept only the
// newer entry at that base, and its free emptied it).
TEST(LiveRegions, ABlockFreedUnsearchedLeavesTheOlderOneAtItsBase) {
  TraceBuilder b;
  const StreamId s = b.stream("s", v1::ROLE_COMPUTE);
  const Buffer older = b.alloc("older", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, s);
  const Buffer newer = b.alloc_at("newer", 1024, v1::ORIGIN_FRAMEWORK_BLOCK, s, older.base);
  b.free(newer, s);
  const Fed fed(b.take());
  EXPECT_EQ(fed.at(older.base + 2048), older.region);
}

// Searched in between, the newer block at a shared base is the one found
// while it lives: the later region at a base wins.
TEST(LiveRegions, TheLaterBlockAtASharedBaseIsFound) {
  TraceBuilder b;
  const StreamId s = b.stream("s", v1::ROLE_COMPUTE);
  const Buffer older = b.alloc("older", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, s);
  const Buffer newer = b.alloc_at("newer", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, s, older.base);
  const Fed fed(b.take());
  EXPECT_EQ(fed.at(older.base + 8), newer.region);
}

}  // namespace
}  // namespace racetrack::check_test
