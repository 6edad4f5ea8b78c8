#include "synth_ranks.h"

namespace racetrack::cli {

std::string rank_path(const std::string& pattern, uint32_t rank) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern.compare(i, 2, "%r") == 0) {
      out += std::to_string(rank);
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

SynthOptions options_for_rank(const SynthOptions& all, uint32_t rank, uint32_t world) {
  SynthOptions o = all;
  o.seed = all.seed + rank;
  o.world_size = world;
  o.rank = static_cast<int32_t>(rank);
  o.host = "synth-node" + std::to_string(rank / 8);  // eight GPUs a node
  o.inject.fill(0);
  uint64_t dealt = 0;
  for (int s = 0; s < kHazardShapeCount; ++s)
    for (uint32_t n = 0; n < all.inject[s]; ++n, ++dealt)
      if (dealt % world == rank) ++o.inject[s];
  return o;
}

}  // namespace racetrack::cli
