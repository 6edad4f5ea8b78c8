#include "racetrack/traces/spill_storage.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <thread>

namespace racetrack::spill {
namespace {

constexpr long kTmpfsMagic = 0x01021994;

size_t page_size() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

size_t round_to_page(size_t bytes) {
  return (bytes + page_size() - 1) / page_size() * page_size();
}

// A whole number of MiB from the environment; `fallback` when unset or not
// a number (said once on stderr).
size_t mib_from_env(const char* name, size_t fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  const unsigned long long mib = std::strtoull(text, &end, 10);
  if (*end || mib > (SIZE_MAX >> 20)) {
    std::fprintf(stderr, "racetrack: %s=%s is not a number of MiB; ignored\n", name, text);
    return fallback;
  }
  return static_cast<size_t>(mib) << 20;
}

std::mutex settings_mutex;
Settings& current_settings() {
  static Settings s = [] {
    Settings d;
    d.spill_above_bytes = mib_from_env("RACETRACK_SPILL_ABOVE_MIB", d.spill_above_bytes);
    d.resident_budget_bytes = mib_from_env("RACETRACK_SPILL_RESIDENT_MIB", d.resident_budget_bytes);
    return d;
  }();
  return s;
}

// Resident pages of shared mappings (the file pages of spilled stores, and
// the program's own code): the third field of /proc/self/statm.
size_t shared_resident_pages() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0, shared = 0;
  const int read = std::fscanf(f, "%llu %llu %llu", &size, &resident, &shared);
  std::fclose(f);
  return read == 3 ? static_cast<size_t>(shared) : 0;
}

// The spilled stores' mappings, and the thread that trims them. It is never
// destroyed: stores may outlive static destructors, and the thread ends
// with the process.
class Registry {
 public:
  std::mutex mutex;

  // Callers hold `mutex`.
  void add(void* base, size_t bytes) {
    mappings_[base] = bytes;
    if (running_) return;
    running_ = true;
    baseline_ = shared_resident_pages();
    // Detached: it ends by itself when no spilled store is left (a thread
    // that has left its loop touches nothing of ours), or with the process.
    std::thread([this] { trim_loop(); }).detach();
  }
  void remove(void* base) { mappings_.erase(base); }
  size_t trims() const { return trims_.load(); }

 private:
  // MADV_DONTNEED on a shared file mapping drops its pages from this
  // process; the next access repopulates them "from the up-to-date contents
  // of the underlying mapped file" (madvise(2)), so no data is lost.
  void trim_loop() {
    std::unique_lock<std::mutex> lock(mutex);
    while (!mappings_.empty()) {
      wake_.wait_for(lock, std::chrono::milliseconds(5));
      const size_t budget = settings().resident_budget_bytes / page_size();
      const size_t now = shared_resident_pages();
      if (now > baseline_ + budget) {
        for (const auto& [base, bytes] : mappings_) madvise(base, bytes, MADV_DONTNEED);
        ++trims_;
        baseline_ = shared_resident_pages();
      } else if (now < baseline_) {
        baseline_ = now;
      }
    }
    running_ = false;
  }

  std::map<void*, size_t> mappings_;
  std::condition_variable wake_;
  bool running_ = false;
  size_t baseline_ = 0;  // shared resident pages after the last trim
  std::atomic<size_t> trims_{0};
};

Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

void say_once(std::atomic<bool>& said, const std::string& line) {
  if (!said.exchange(true)) std::fprintf(stderr, "racetrack: %s\n", line.c_str());
}

std::string spill_directory() {
  Settings s = settings();
  if (!s.directory.empty()) return s.directory;
  const char* tmpdir = std::getenv("TMPDIR");
  return tmpdir && *tmpdir ? tmpdir : "/tmp";
}

// An unlinked file in the spill directory: it is gone when closed, however
// the process ends. -1 when none can be made.
int open_spill_file() {
  static std::atomic<bool> said_tmpfs{false}, said_failed{false};
  const std::string dir = spill_directory();
  struct statfs fs {};
  if (statfs(dir.c_str(), &fs) == 0 && static_cast<long>(fs.f_type) == kTmpfsMagic)
    say_once(said_tmpfs, "note: " + dir +
                             " is in memory (tmpfs), so spilling arrays there saves no memory; "
                             "set TMPDIR to a directory on disk");
  int fd = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::string name = dir + "/racetrack-spill-XXXXXX";
    fd = mkostemp(name.data(), O_CLOEXEC);
    if (fd >= 0) unlink(name.c_str());
  }
  if (fd < 0)
    say_once(said_failed, "cannot make a spill file in " + dir + " (" + std::strerror(errno) +
                              "); keeping the data in memory");
  return fd;
}

// Blocks for [from, to) of the file now, so that a full disk is an error
// here rather than a SIGBUS when a page is first written.
bool reserve_file(int fd, size_t from, size_t to) {
  static std::atomic<bool> said{false};
  const int err = posix_fallocate(fd, static_cast<off_t>(from), static_cast<off_t>(to - from));
  if (err)
    say_once(said, "cannot grow a spill file in " + spill_directory() + " (" + std::strerror(err) +
                       "); keeping the data in memory");
  return err == 0;
}

}  // namespace

Settings settings() {
  std::lock_guard<std::mutex> lock(settings_mutex);
  return current_settings();
}

void configure(const Settings& s) {
  std::lock_guard<std::mutex> lock(settings_mutex);
  current_settings() = s;
}

size_t trims() {
  return registry().trims();
}

Storage::Storage(Storage&& other) noexcept : base_(other.base_), capacity_(other.capacity_), fd_(other.fd_) {
  other.base_ = nullptr;
  other.capacity_ = 0;
  other.fd_ = -1;
}

Storage& Storage::operator=(Storage&& other) noexcept {
  if (this == &other) return *this;
  release();
  base_ = other.base_;
  capacity_ = other.capacity_;
  fd_ = other.fd_;
  other.base_ = nullptr;
  other.capacity_ = 0;
  other.fd_ = -1;
  return *this;
}

Storage::~Storage() {
  release();
}

void Storage::release() noexcept {
  if (fd_ >= 0) {
    {
      std::lock_guard<std::mutex> lock(registry().mutex);
      registry().remove(base_);
      munmap(base_, capacity_);  // under the lock: the trimmer must not touch the range once reused
    }
    close(fd_);
  } else {
    std::free(base_);
  }
  base_ = nullptr;
  capacity_ = 0;
  fd_ = -1;
}

void Storage::grow(size_t bytes, size_t used) {
  if (bytes <= capacity_) return;
  if (fd_ >= 0) {
    const size_t want = round_to_page(bytes);
    std::lock_guard<std::mutex> lock(registry().mutex);
    if (reserve_file(fd_, capacity_, want)) {
      void* moved = mremap(base_, capacity_, want, MREMAP_MAYMOVE);
      if (moved != MAP_FAILED) {
        registry().remove(base_);
        registry().add(moved, want);
        base_ = moved;
        capacity_ = want;
        return;
      }
    }
    // No file space: the bytes go back to memory.
    void* memory = std::malloc(bytes);
    if (!memory) throw std::bad_alloc();
    std::memcpy(memory, base_, used);
    registry().remove(base_);
    munmap(base_, capacity_);
    close(fd_);
    base_ = memory;
    capacity_ = bytes;
    fd_ = -1;
    return;
  }
  if (bytes > settings().spill_above_bytes) {
    const size_t want = round_to_page(bytes);
    if (const int fd = open_spill_file(); fd >= 0) {
      void* mapped = reserve_file(fd, 0, want)
                         ? mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                         : MAP_FAILED;
      if (mapped != MAP_FAILED) {
        madvise(mapped, want, MADV_DONTFORK);  // a forked child must not write its parent's file
        if (used) std::memcpy(mapped, base_, used);
        std::free(base_);
        base_ = mapped;
        capacity_ = want;
        fd_ = fd;
        std::lock_guard<std::mutex> lock(registry().mutex);
        registry().add(base_, capacity_);
        return;
      }
      close(fd);
    }
  }
  void* memory = std::realloc(base_, bytes);
  if (!memory) throw std::bad_alloc();
  base_ = memory;
  capacity_ = bytes;
}

void Storage::shrink(size_t used) {
  if (fd_ >= 0 || used >= capacity_) return;
  if (used == 0) {
    release();
    return;
  }
  if (void* memory = std::realloc(base_, used)) {
    base_ = memory;
    capacity_ = used;
  }
}

}  // namespace racetrack::spill
