// SpillArray: a vector while small; past the threshold its elements live in
// a temporary file, survive growth and the trimmer dropping their pages,
// and can be read from other threads while it does; when no file can be
// made they stay in memory.
#include "racetrack/traces/spill_array.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <thread>

namespace spill = racetrack::spill;

namespace {

struct Item {
  uint64_t a = 0;
  uint32_t b = 0;
  bool operator==(const Item&) const = default;
};

// Restores the settings a test changed.
class SpillSettings : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = spill::settings(); }
  void TearDown() override { spill::configure(saved_); }
  void spill_everything(size_t budget_bytes) {
    spill::Settings s = saved_;
    s.spill_above_bytes = 0;
    s.resident_budget_bytes = budget_bytes;
    s.directory = RACETRACK_TEST_TMPDIR;
    spill::configure(s);
  }
  spill::Settings saved_;
};

size_t shared_resident_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  unsigned long long size = 0, resident = 0, shared = 0;
  EXPECT_EQ(std::fscanf(f, "%llu %llu %llu", &size, &resident, &shared), 3);
  std::fclose(f);
  return static_cast<size_t>(shared) * 4096;
}

bool wait_for_trims_past(size_t before) {
  for (int k = 0; k < 500 && spill::trims() <= before; ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return spill::trims() > before;
}

TEST_F(SpillSettings, BehavesAsAVectorWhileSmall) {
  racetrack::SpillArray<Item> v;
  EXPECT_TRUE(v.empty());
  for (uint32_t i = 0; i < 1000; ++i) v.push_back({i * 3ull, i});
  v.emplace_back(7ull, 8u);
  v.push_back(v.front());  // an element of its own, while it grows
  ASSERT_EQ(v.size(), 1002u);
  EXPECT_FALSE(v.spilled());
  EXPECT_EQ(v[999], (Item{2997, 999}));
  EXPECT_EQ(v.back(), (Item{0, 0}));
  EXPECT_THROW(static_cast<void>(v.at(1002)), std::out_of_range);
  v.resize(1005, Item{1, 1});
  EXPECT_EQ(v[1004], (Item{1, 1}));
  v.resize(2);
  v.resize(3);
  EXPECT_EQ(v[2], Item{});  // regrown elements are new values, not what was there
  const racetrack::SpillArray<Item> copy = v;
  EXPECT_TRUE(copy == v);
  racetrack::SpillArray<Item> moved = std::move(v);
  EXPECT_EQ(moved.size(), 3u);
  EXPECT_TRUE(v.empty());
  const racetrack::SpillArray<uint32_t> listed = {4, 5, 6};
  EXPECT_EQ(listed.at(2), 6u);
  EXPECT_EQ(*listed.rbegin(), 6u);
}

TEST_F(SpillSettings, MovesToAFileAndKeepsItsElementsThroughGrowth) {
  racetrack::SpillArray<Item> v;
  for (uint32_t i = 0; i < 100; ++i) v.push_back({i, i});
  EXPECT_FALSE(v.spilled());
  spill_everything(64u << 20);
  for (uint32_t i = 100; i < 300000; ++i) v.push_back({i, i});  // many growths of the file
  EXPECT_TRUE(v.spilled());
  for (uint32_t i = 0; i < v.size(); ++i)
    if (v[i] != Item{i, i}) FAIL() << "element " << i << " lost";
  racetrack::SpillArray<Item> copy = v;
  EXPECT_TRUE(copy.spilled());
  EXPECT_TRUE(copy == v);
  copy[5].b = 99;
  EXPECT_EQ(v[5].b, 5u);  // a copy has its own file
}

TEST_F(SpillSettings, TrimmingDropsResidentPagesAndLosesNoData) {
  spill_everything(size_t{1} << 40);  // no trim while it fills
  constexpr size_t kCount = (96u << 20) / sizeof(uint64_t);
  racetrack::SpillArray<uint64_t> v(kCount);
  for (size_t i = 0; i < kCount; ++i) v[i] = i * 2654435761u;
  const size_t before = shared_resident_bytes();
  const size_t trims = spill::trims();
  spill_everything(1u << 20);
  ASSERT_TRUE(wait_for_trims_past(trims));
  const size_t after = shared_resident_bytes();
  EXPECT_GT(before, after + (48u << 20)) << "the trimmer left the pages resident";
  for (size_t i = 0; i < kCount; ++i)
    if (v[i] != i * 2654435761u) FAIL() << "element " << i << " lost in the trim";
}

TEST_F(SpillSettings, OtherThreadsReadThroughTrims) {
  spill_everything(0);  // trim at every look
  constexpr size_t kCount = (16u << 20) / sizeof(uint32_t);
  racetrack::SpillArray<uint32_t> v(kCount);
  uint64_t expected = 0;
  for (size_t i = 0; i < kCount; ++i) expected += v[i] = static_cast<uint32_t>(i * 7);
  const size_t trims_before = spill::trims();
  std::vector<uint64_t> sums(4);
  std::vector<std::thread> readers;
  for (size_t t = 0; t < sums.size(); ++t)
    readers.emplace_back([&, t] {
      for (int round = 0; round < 8; ++round) {
        uint64_t sum = 0;
        for (uint32_t x : v) sum += x;
        if (round == 0 || sum != expected) sums[t] = sum;
      }
    });
  for (auto& r : readers) r.join();
  for (uint64_t s : sums) EXPECT_EQ(s, expected);
  EXPECT_TRUE(wait_for_trims_past(trims_before));
}

TEST_F(SpillSettings, StaysInMemoryWhenNoFileCanBeMade) {
  spill::Settings s = saved_;
  s.spill_above_bytes = 0;
  s.directory = std::string(RACETRACK_TEST_TMPDIR) + "/no-such-directory";
  spill::configure(s);
  racetrack::SpillArray<uint32_t> v;
  for (uint32_t i = 0; i < 100000; ++i) v.push_back(i);
  EXPECT_FALSE(v.spilled());
  for (uint32_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], i);
}

}  // namespace
