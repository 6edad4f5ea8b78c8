// Memory whose resident size stays flat however long the trace: bytes live
// on the heap while small and move to a shared mapping of an
// unlinked temporary file once large. A trimmer thread hands the pages of
// those mappings back to the page cache whenever they have grown by a
// budget; the next touch reads them back from the file (docs/sim.md,
// "Memory"). Readers on any thread keep working through a trim, so the
// replay's worker threads need no lock. A forked child does not inherit
// the file mappings (MADV_DONTFORK): it must not use its parent's arrays.
#pragma once

#include <cstddef>
#include <string>

namespace racetrack::spill {

struct Settings {
  // A store larger than this moves to a file.
  size_t spill_above_bytes = 2u << 20;
  // The trimmer runs when spilled pages resident have grown by this much
  // since its last run.
  size_t resident_budget_bytes = 32u << 20;
  std::string directory;  // empty: $TMPDIR, else /tmp
};

// The settings in force: at first use from RACETRACK_SPILL_ABOVE_MIB and
// RACETRACK_SPILL_RESIDENT_MIB, then as configure() left them.
Settings settings();
// For tests and tools: applies to stores that grow from now on.
void configure(const Settings& settings);
// How many times the trimmer has run since the process started.
size_t trims();

// Raw bytes for SpillArray.
class Storage {
 public:
  Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  Storage(Storage&& other) noexcept;
  Storage& operator=(Storage&& other) noexcept;
  ~Storage();

  void* data() const { return base_; }
  size_t capacity() const { return capacity_; }
  bool spilled() const { return fd_ >= 0; }
  // At least `bytes` of capacity, keeping the first `used`. Like a vector's
  // growth it may move the bytes. Throws std::bad_alloc when no memory or
  // file space can be had.
  void grow(size_t bytes, size_t used);
  // Gives back the memory past `used`; a spilled store's extra is disk.
  void shrink(size_t used);

 private:
  void release() noexcept;

  void* base_ = nullptr;
  size_t capacity_ = 0;
  int fd_ = -1;  // the file behind a spilled store
};

}  // namespace racetrack::spill
