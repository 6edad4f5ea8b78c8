// Mapping in memory ahead of the thread that will write it.
#pragma once

#include <cstddef>

namespace racetrack {

// Makes the whole pages within [p, p + bytes) present and writable without
// writing them (madvise MADV_POPULATE_WRITE, Linux 5.14): their contents do
// not change, so another thread may write the same pages meanwhile. False
// where the kernel cannot.
bool populate_writable(char* p, size_t bytes);

}  // namespace racetrack
