// The arena plan, as properties over random sets of ranges and over real
// traces: unscaled, two accesses overlap in trace space exactly when their
// arena images do, distances inside an island are kept and granule
// boundaries stay where the trace has them; scaled down, disjoint ranges
// stay disjoint and the mapping is monotonic; the arenas cover every image.
#include <random>

#include "racetrack/traces/trace_io.h"
#include "replay_test_support.h"

namespace racetrack::replay_test {
namespace {

using replay::ArenaPlan;
using testing::TempDir;

// A program with only accesses: all ArenaPlan::build looks at.
des::Program random_accesses(std::mt19937_64& rng, size_t count) {
  des::Program p;
  std::uniform_int_distribution<uint32_t> space(0, 2);
  std::uniform_int_distribution<uint64_t> start(0, 1 << 20), size_class(0, 9);
  const uint64_t bases[] = {0x200000000ull, 0x7f0000000000ull, 0x5600000000ull};
  for (size_t k = 0; k < count; ++k) {
    const race::SpaceKey sp = space(rng);
    const uint64_t lo = bases[sp] + start(rng);
    // Mostly small ranges, some large ones joining many.
    const uint64_t cls = size_class(rng);
    const uint64_t size = cls < 4 ? 1 + rng() % 64 : cls < 8 ? 1 + rng() % 8192 : 1 + rng() % (1 << 17);
    p.accesses.push_back({sp, sp, lo, lo + size, 0, true, k % 3 == 0});
    // Now and then one that touches the previous end exactly.
    if (k % 7 == 0) p.accesses.push_back({sp, sp, lo + size, lo + size + 1 + rng() % 512, 0, true, false});
  }
  return p;
}

struct Image {
  uint64_t lo, hi;
};

Image image(const ArenaPlan& plan, const des::SimAccess& a) {
  return {plan.offset(a.space, a.lo), plan.offset(a.space, a.hi)};
}

bool overlap(uint64_t a_lo, uint64_t a_hi, uint64_t b_lo, uint64_t b_hi) {
  return std::max(a_lo, b_lo) < std::min(a_hi, b_hi);
}

const replay::Island* island_of(const ArenaPlan& plan, const des::SimAccess& a) {
  const replay::Island* found = nullptr;
  for (const replay::Island& i : plan.islands())
    if (i.space == a.space && i.lo <= a.lo && a.hi <= i.hi) {
      EXPECT_EQ(found, nullptr) << "islands overlap";
      found = &i;
    }
  return found;
}

// The structure every plan has: islands sorted, apart, each inside its
// space's arena, with images that never share a granule.
void expect_well_formed(const ArenaPlan& plan) {
  const auto& islands = plan.islands();
  ASSERT_FALSE(islands.empty());
  for (size_t k = 0; k < islands.size(); ++k) {
    const replay::Island& i = islands[k];
    EXPECT_LT(i.lo, i.hi);
    EXPECT_GE(i.arena_bytes, plan.granule());
    EXPECT_LE(i.arena_base + i.arena_bytes, plan.arena_bytes(i.space));
    EXPECT_LE(plan.offset(i.space, i.hi), i.arena_base + i.arena_bytes) << "an image overruns its island";
    if (k == 0 || islands[k - 1].space != i.space) continue;
    const replay::Island& prev = islands[k - 1];
    EXPECT_LT(prev.hi, i.lo) << "touching or overlapping islands were not merged";
    // The last granule of the previous island's image ends before this
    // island's first granule.
    EXPECT_LT((prev.arena_base + prev.arena_bytes - 1) / plan.granule(), i.arena_base / plan.granule());
  }
}

class PlanProperty : public ::testing::TestWithParam<uint64_t> {};

TEST_P(PlanProperty, UnscaledPlansKeepEveryOverlapAndDistance) {
  const uint64_t granule = GetParam();
  std::mt19937_64 rng(granule * 7919);
  for (int set = 0; set < 60; ++set) {
    const des::Program p = random_accesses(rng, 150);
    const ArenaPlan plan = ArenaPlan::build(p, granule, 0);
    ASSERT_EQ(plan.scale(), 1.0);
    ASSERT_EQ(plan.granule(), granule);
    expect_well_formed(plan);
    for (const des::SimAccess& a : p.accesses) {
      const replay::Island* i = island_of(plan, a);
      ASSERT_NE(i, nullptr) << "an access outside every island";
      const Image im = image(plan, a);
      EXPECT_EQ(im.lo - i->arena_base, a.lo - i->lo) << "distances inside an island change";
      EXPECT_EQ(im.hi - im.lo, a.hi - a.lo);
      EXPECT_EQ(im.lo % granule, a.lo % granule) << "granule boundaries moved";
      EXPECT_LE(im.hi, plan.arena_bytes(a.space));
    }
    std::vector<Image> images;
    for (const des::SimAccess& a : p.accesses) images.push_back(image(plan, a));
    for (size_t x = 0; x < p.accesses.size(); ++x)
      for (size_t y = x + 1; y < p.accesses.size(); ++y) {
        const des::SimAccess &a = p.accesses[x], &b = p.accesses[y];
        if (a.space != b.space) continue;
        const Image &ia = images[x], &ib = images[y];
        ASSERT_EQ(overlap(a.lo, a.hi, b.lo, b.hi), overlap(ia.lo, ia.hi, ib.lo, ib.hi))
            << "set " << set << ": [" << a.lo << ", " << a.hi << ") and [" << b.lo << ", " << b.hi << ")";
      }
  }
}

TEST_P(PlanProperty, ScaledPlansKeepDisjointRangesApartAndOrder) {
  const uint64_t granule = GetParam();
  std::mt19937_64 rng(granule * 104729);
  for (int set = 0; set < 60; ++set) {
    const des::Program p = random_accesses(rng, 150);
    const uint64_t full = ArenaPlan::build(p, granule, 0).traced_bytes();
    const uint64_t limit = std::max<uint64_t>(full / (2 + set % 50), 1);
    const ArenaPlan plan = ArenaPlan::build(p, granule, limit);
    ASSERT_LT(plan.scale(), 1.0);
    expect_well_formed(plan);
    // The limit bounds the scaled bytes; each island adds at most three
    // granules of rounding and separation.
    uint64_t arena = 0;
    for (race::SpaceKey s : plan.spaces()) arena += plan.arena_bytes(s);
    EXPECT_LE(arena, limit + 3 * granule * plan.islands().size());
    for (const des::SimAccess& a : p.accesses) {
      ASSERT_NE(island_of(plan, a), nullptr);
      EXPECT_LE(image(plan, a).hi, plan.arena_bytes(a.space));
    }
    std::vector<Image> images;
    for (const des::SimAccess& a : p.accesses) images.push_back(image(plan, a));
    for (size_t x = 0; x < p.accesses.size(); ++x)
      for (size_t y = x + 1; y < p.accesses.size(); ++y) {
        const des::SimAccess &a = p.accesses[x], &b = p.accesses[y];
        if (a.space != b.space || overlap(a.lo, a.hi, b.lo, b.hi)) continue;
        const Image &ia = images[x], &ib = images[y];
        ASSERT_FALSE(overlap(ia.lo, ia.hi, ib.lo, ib.hi))
            << "set " << set << ": disjoint [" << a.lo << ", " << a.hi << ") and [" << b.lo << ", " << b.hi
            << ") overlap in the arena";
      }
    // Monotonic: every traced end point, in order, maps to a non-decreasing offset.
    std::map<race::SpaceKey, std::vector<uint64_t>> points;
    for (const des::SimAccess& a : p.accesses) {
      points[a.space].push_back(a.lo);
      points[a.space].push_back(a.hi);
    }
    for (auto& [space, xs] : points) {
      std::sort(xs.begin(), xs.end());
      for (size_t k = 1; k < xs.size(); ++k)
        ASSERT_LE(plan.offset(space, xs[k - 1]), plan.offset(space, xs[k])) << xs[k - 1] << " < " << xs[k];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Granules, PlanProperty, ::testing::Values(4, 64, 1000, 4096),
                         [](const ::testing::TestParamInfo<uint64_t>& param) {
                           return "granule_" + std::to_string(param.param);
                         });

TEST(Plan, ATracedProgramKeepsEveryOverlap) {
  TempDir dir;
  const std::string path = dir.path("standard.pbtxt");
  ASSERT_TRUE(save_trace(testing::standard_trace(3), path));
  const des::Program p = sim_test::load(path);
  ASSERT_GT(p.accesses.size(), 20u);
  const ArenaPlan plan = ArenaPlan::build(p, 4096, 0);
  expect_well_formed(plan);
  EXPECT_EQ(plan.spaces().size(), 2u) << "host memory and device 0";
  for (const des::SimAccess& a : p.accesses)
    for (const des::SimAccess& b : p.accesses) {
      if (a.space != b.space) continue;
      const Image ia = image(plan, a), ib = image(plan, b);
      EXPECT_EQ(overlap(a.lo, a.hi, b.lo, b.hi), overlap(ia.lo, ia.hi, ib.lo, ib.hi));
    }
}

TEST(Plan, SmallFootprintsAreNotScaledAndTheGranuleHasAFloor) {
  des::Program p;
  p.accesses.push_back({0, 0, 1000, 3000, 0, true, true});
  p.accesses.push_back({0, 0, 2000, 9000, 0, true, false});
  p.accesses.push_back({0, 0, 20000, 20001, 0, false, true});
  p.accesses.push_back({1, 1, 0x7f0000000000ull, 0x7f0000001000ull, 0, true, true});
  const ArenaPlan plan = ArenaPlan::build(p, 1, 256ull << 20);
  EXPECT_EQ(plan.granule(), 4u);
  EXPECT_EQ(plan.scale(), 1.0);
  ASSERT_EQ(plan.islands().size(), 3u);
  EXPECT_EQ(plan.islands()[0].lo, 1000u);
  EXPECT_EQ(plan.islands()[0].hi, 9000u);
  EXPECT_EQ(plan.islands()[1].lo, 20000u);
  EXPECT_EQ(plan.spaces(), (std::vector<race::SpaceKey>{0, 1}));
}

}  // namespace
}  // namespace racetrack::replay_test
