// The true modes of the corpus kernels, declared beside them:
//   // expect NAME: ptr=1,2 reads=2 writes=1 [pdl] [indirect]
// Words are 1-based 8-byte parameter words; "a-b" is a range, "pN" all
// words of the N-th parameter (1-based, as laid out in the cubin). A word
// not in reads= or writes= is not accessed through.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "racetrack/code/access_modes.h"

namespace racetrack::code::test {

struct Truth {
  std::string name;
  std::vector<std::string> ptr, reads, writes;  // unresolved tokens
  bool pdl = false, indirect = false;
  std::string source;  // file:line
};

// Every `// expect` line of the files (text of .cu files or a truth list).
std::vector<Truth> parse_truths(const std::string& text, const std::string& file);

// Resolves tokens to words with the kernel's layout.
std::set<uint32_t> resolve(const std::vector<std::string>& tokens, const KernelLayout& layout);

struct Score {
  uint64_t kernels = 0;
  uint64_t pointer_words = 0;  // true pointer words
  uint64_t definite = 0;       // of those, given a mode other than escapes
  uint64_t exact = 0;          // of those, given exactly the true mode
  uint64_t unsound = 0;        // words read or written but reported otherwise, or pdl/indirect missed
  std::vector<std::string> failures;
};

// Compares one kernel's result with its truth; `sm` decides whether a PDL
// wait can exist (sm_90 and later).
void score(const Truth& truth, const KernelLayout& layout, const KernelModes& got, uint32_t sm, Score& out);

}  // namespace racetrack::code::test
