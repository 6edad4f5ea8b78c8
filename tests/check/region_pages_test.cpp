// The resolver's region table: lookups by id across pages, erasure, and a
// page released only once every region in it is gone (the others' infos
// stay where they were).
#include "racetrack/race/region_pages.h"

#include <gtest/gtest.h>

namespace racetrack::race {
namespace {

RegionInfo info(uint64_t base) {
  RegionInfo r;
  r.base = base;
  r.size = 64;
  return r;
}

TEST(RegionPages, FindsWhatWasAddedUntilItIsErased) {
  RegionPages pages;
  EXPECT_EQ(pages.find(1), nullptr);
  for (uint32_t id : {1u, 2u, 1023u, 1024u, 5000u}) pages.add(id, info(id * 0x100));
  for (uint32_t id : {1u, 2u, 1023u, 1024u, 5000u}) {
    ASSERT_NE(pages.find(id), nullptr) << id;
    EXPECT_EQ(pages.find(id)->base, id * 0x100);
  }
  EXPECT_EQ(pages.find(3), nullptr);
  EXPECT_EQ(pages.find(4999), nullptr);
  EXPECT_EQ(pages.find(1u << 30), nullptr);
  const RegionInfo* kept = pages.find(2);
  pages.erase(1);
  EXPECT_EQ(pages.find(1), nullptr);
  EXPECT_EQ(pages.find(2), kept) << "erasing a neighbour moves nothing";
  pages.erase(2);
  pages.erase(1023);  // the first page is empty now, and released
  EXPECT_EQ(pages.find(2), nullptr);
  pages.add(7, info(0x700));  // and made again when needed
  ASSERT_NE(pages.find(7), nullptr);
  EXPECT_EQ(pages.find(7)->base, 0x700u);
  EXPECT_EQ(pages.find(1024)->base, 1024u * 0x100);
  pages.erase(99999);  // never added: nothing happens
}

}  // namespace
}  // namespace racetrack::race
