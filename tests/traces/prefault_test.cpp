// Prefaulting: populate_writable maps pages in without changing a byte, and
// a ChunkReader prefaults the arenas of only the chunks its file can hold
// and keeps, and reads every chunk afterwards.
#include "racetrack/traces/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "racetrack/traces/container.h"
#include "test_support.h"

namespace racetrack {
namespace {

using testing::TempDir;

std::vector<bool> resident(const char* base, size_t pages, size_t page) {
  std::vector<unsigned char> in(pages);
  EXPECT_EQ(mincore(const_cast<char*>(base), pages * page, in.data()), 0);
  std::vector<bool> out;
  for (unsigned char c : in) out.push_back(c & 1);
  return out;
}

TEST(PopulateWritable, MapsWholePagesInWithoutChangingThem) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t pages = 16;
  void* mapped = mmap(nullptr, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  char* base = static_cast<char*>(mapped);
  base[3 * page + 7] = 'x';
  EXPECT_FALSE(resident(base, pages, page)[5]);

  // From inside page 0 to inside page 15: pages 1-14 are whole.
  ASSERT_TRUE(populate_writable(base + 100, 15 * page));
  const std::vector<bool> in = resident(base, pages, page);
  for (size_t k = 1; k < 15; ++k) EXPECT_TRUE(in[k]) << "page " << k;
  EXPECT_FALSE(in[0]);
  EXPECT_FALSE(in[15]);
  EXPECT_EQ(base[3 * page + 7], 'x');
  EXPECT_EQ(base[5 * page], 0);
  munmap(mapped, pages * page);
}

// How many pieces prefault_some() maps in before it has nothing left.
size_t prefault_pieces(const std::string& path, size_t kept) {
  auto reader = ChunkReader::open(path);
  EXPECT_TRUE(reader.ok());
  if (!reader) return 0;
  reader->keep_chunks(kept);
  size_t pieces = 0;
  while (reader->prefault_some()) ++pieces;
  // Reading afterwards gives every chunk.
  size_t chunks = 0;
  for (;;) {
    auto chunk = reader->read();
    EXPECT_TRUE(chunk.ok());
    if (!chunk || !*chunk) break;
    ++chunks;
  }
  EXPECT_GT(chunks, 0u);
  return pieces;
}

// A file of `chunks` equal chunks of 3 ops (ChunkReader does not validate).
std::string equal_chunks(const TempDir& dir, int chunks) {
  v1::Chunk ops;
  const v1::Chunk trace = testing::standard_trace(3);
  for (int k = 0; k < 3; ++k) *ops.add_ops() = trace.ops(k);
  const std::string path = dir.path(std::to_string(chunks) + ".rtrace");
  auto writer = TraceWriter::create(path, {.compress = false});
  EXPECT_TRUE(writer.ok());
  for (int k = 0; k < chunks; ++k) EXPECT_TRUE(writer->write_chunk(ops).ok());
  EXPECT_TRUE(writer->close().ok());
  return path;
}

TEST(ChunkReaderPrefault, OnlyTheArenasOfChunksTheFileHolds) {
  TempDir dir;
  const size_t per_chunk = prefault_pieces(equal_chunks(dir, 1), 6);
  ASSERT_GT(per_chunk, 0u);
  const std::string four = equal_chunks(dir, 4);
  EXPECT_EQ(prefault_pieces(four, 6), 4 * per_chunk);  // not six arenas' worth
  EXPECT_EQ(prefault_pieces(four, 2), 2 * per_chunk);  // not more than it keeps
  EXPECT_EQ(prefault_pieces(four, 1), per_chunk);
}

}  // namespace
}  // namespace racetrack
