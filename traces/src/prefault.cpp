#include "racetrack/traces/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace racetrack {

bool populate_writable(char* p, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t from = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  const uintptr_t to = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(page - 1);
  if (to <= from) return true;
  return madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE) == 0;
#else
  (void)p;
  (void)bytes;
  return false;
#endif
}

}  // namespace racetrack
