// "did you mean ...?" for a mistyped subcommand or option.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace racetrack::cli {

// The candidate nearest to `word` by edit distance (insertions, deletions,
// substitutions and swaps of neighbours), when it is near enough to be a
// typo: at most one edit for short words, two from six letters on. Ties go
// to the earlier candidate.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace racetrack::cli
