// The resolver's index of live regions by base address (address_index.h),
// against std::map over random assignments, erasures and searches: enough of
// them that pages split, empty and go away, at bases that collide often.
#include "racetrack/race/address_index.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace racetrack::race {
namespace {

const uint32_t* reference_at_or_before(const std::map<uint64_t, uint32_t>& m, uint64_t at) {
  auto it = m.upper_bound(at);
  return it == m.begin() ? nullptr : &std::prev(it)->second;
}

TEST(AddressIndex, EmptyFindsNothing) {
  AddressIndex<uint32_t> index;
  EXPECT_EQ(index.at_or_before(0), nullptr);
  EXPECT_EQ(index.at_or_before(UINT64_MAX), nullptr);
  index.erase_if(5, [](uint32_t) { return true; });
  EXPECT_EQ(index.size(), 0u);
}

TEST(AddressIndex, FindsTheGreatestBaseAtMost) {
  AddressIndex<uint32_t> index;
  index.assign(100, 1);
  index.assign(300, 3);
  index.assign(200, 2);
  EXPECT_EQ(index.at_or_before(99), nullptr);
  EXPECT_EQ(*index.at_or_before(100), 1u);
  EXPECT_EQ(*index.at_or_before(299), 2u);
  EXPECT_EQ(*index.at_or_before(UINT64_MAX), 3u);
  index.assign(200, 7);  // replaces
  EXPECT_EQ(*index.at_or_before(250), 7u);
  index.erase_if(200, [](uint32_t v) { return v == 2; });  // not the one there: kept
  EXPECT_EQ(*index.at_or_before(250), 7u);
  index.erase_if(200, [](uint32_t v) { return v == 7; });
  EXPECT_EQ(*index.at_or_before(250), 1u);
  EXPECT_EQ(index.size(), 2u);
}

TEST(AddressIndex, AgreesWithStdMapOverRandomWork) {
  for (const uint64_t spread : {uint64_t{64}, uint64_t{5000}, uint64_t{1} << 40}) {
    SCOPED_TRACE(spread);
    std::mt19937_64 rng(spread);
    AddressIndex<uint32_t> index;
    std::map<uint64_t, uint32_t> reference;
    for (uint32_t step = 1; step <= 60000; ++step) {
      const uint64_t base = rng() % spread;
      // Grow for a while, then shrink: pages split, then empty out.
      const bool growing = (step / 15000) % 2 == 0;
      if (rng() % 3 != 0 ? growing : !growing) {
        index.assign(base, step);
        reference[base] = step;
      } else {
        // Erase what is there half the time, a stale value otherwise.
        auto it = reference.lower_bound(base);
        if (it == reference.end()) continue;
        const uint32_t value = rng() % 2 ? it->second : it->second + 1;
        index.erase_if(it->first, [&](uint32_t v) { return v == value; });
        if (value == it->second) reference.erase(it);
      }
      const uint64_t probe = rng() % (spread + 10);
      const uint32_t* got = index.at_or_before(probe);
      const uint32_t* want = reference_at_or_before(reference, probe);
      ASSERT_EQ(got == nullptr, want == nullptr) << "step " << step << " probe " << probe;
      if (got) {
        ASSERT_EQ(*got, *want) << "step " << step << " probe " << probe;
      }
    }
    EXPECT_EQ(index.size(), reference.size());
  }
}

}  // namespace
}  // namespace racetrack::race
