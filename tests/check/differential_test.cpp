// Differential testing: for two thousand seeded random programs, the
// hazards check_trace reports (every confidence) equal those of the
// reference in oracle.cpp, which derives happens-before as an explicit graph
// and applies docs/check.md's definition pair by pair; and checking a
// program as a stream of chunks gives what checking it whole gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <set>

#include "check_test_support.h"
#include "oracle.h"
#include "random_programs.h"

namespace racetrack::check_test {
namespace {

constexpr uint64_t kFirstSeed = 1;
constexpr uint64_t kPrograms = 2000;

TEST(RandomPrograms, AreValidAndDeterministic) {
  for (uint64_t seed = kFirstSeed; seed < kFirstSeed + kPrograms; ++seed) {
    const v1::Chunk program = random_program(seed);
    ASSERT_EQ(validation_errors(program), std::vector<std::string>{}) << "seed " << seed << "\n"
                                                                      << text_format(program);
    ASSERT_GE(program.ops_size(), 10);
  }
  EXPECT_EQ(random_program(7).SerializeAsString(), random_program(7).SerializeAsString());
  EXPECT_NE(random_program(7).SerializeAsString(), random_program(8).SerializeAsString());
}

// The generator is only useful if its programs race and order in many ways.
TEST(RandomPrograms, CoverHazardsOfEveryKindAndClean) {
  uint64_t clean = 0, racy = 0, in_graphs = 0, reuse = 0;
  std::set<race::HazardKind> kinds;
  std::set<race::Confidence> confidences;
  for (uint64_t seed = kFirstSeed; seed < kFirstSeed + 300; ++seed) {
    const race::CheckResult result = check_all(random_program(seed));
    (result.all.empty() ? clean : racy) += 1;
    for (const race::Hazard& h : result.all) {
      kinds.insert(h.kind);
      confidences.insert(h.confidence);
      in_graphs += h.first.access.node && h.second.access.node && h.first.seq == h.second.seq;
      reuse += h.cls == race::HazardClass::kReuse;
    }
  }
  EXPECT_GT(racy, 100u);
  EXPECT_GT(clean, 0u);
  EXPECT_EQ(kinds.size(), 3u);
  EXPECT_EQ(confidences.size(), 3u);
  EXPECT_GT(in_graphs, 0u);
  EXPECT_GT(reuse, 0u);
}

TEST(Differential, CheckerEqualsOracle) {
  uint64_t mismatches = 0, hazards = 0;
  for (uint64_t seed = kFirstSeed; seed < kFirstSeed + kPrograms; ++seed) {
    const v1::Chunk program = random_program(seed);
    const HazardSet want = oracle_hazards(program);
    const HazardSet got = hazard_set(check_all(program));
    hazards += got.size();
    if (want == got) continue;
    HazardSet missing, extra;
    std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                        std::inserter(missing, missing.end()));
    std::set_difference(got.begin(), got.end(), want.begin(), want.end(), std::inserter(extra, extra.end()));
    ADD_FAILURE() << "seed " << seed << ": the checker and the oracle disagree\noracle:\n"
                  << to_string(want) << "checker:\n"
                  << to_string(got) << "missing from the checker:\n"
                  << to_string(missing) << "only in the checker:\n"
                  << to_string(extra) << "program:\n"
                  << text_format(program);
    if (++mismatches >= 3) break;  // enough to debug
  }
  EXPECT_GT(hazards, kPrograms) << "the programs should race often";
}

// The program as a stream of `parts` chunks: entities in the first (each
// region with copies of its lifetime, as a streaming writer that defines
// regions early must give them), ops spread over all.
std::vector<v1::Chunk> split(const v1::Chunk& whole, int parts) {
  std::vector<v1::Chunk> chunks(static_cast<size_t>(parts));
  chunks[0] = whole;
  chunks[0].clear_ops();
  auto region = [&](uint32_t id) { return chunks[0].mutable_regions(static_cast<int>(id) - 1); };
  for (const v1::Op& op : whole.ops()) {
    if (op.has_alloc()) region(op.alloc().region())->set_alloc_seq(op.seq());
    if (op.has_free()) region(op.free().region())->set_free_seq(op.seq());
  }
  for (int i = 0; i < whole.ops_size(); ++i)
    *chunks[static_cast<size_t>(i * parts / whole.ops_size())].add_ops() = whole.ops(i);
  return chunks;
}

TEST(Differential, ChunkedTraceEqualsWholeTrace) {
  for (uint64_t seed = kFirstSeed; seed < kFirstSeed + kPrograms / 4; ++seed) {
    const v1::Chunk program = random_program(seed);
    race::Checker checker(keep_all_options());
    for (const v1::Chunk& chunk : split(program, 3)) checker.add_chunk(chunk);
    const HazardSet got = hazard_set(checker.finish());
    const HazardSet want = hazard_set(check_all(program));
    ASSERT_EQ(got, want) << "seed " << seed << "\nwhole:\n"
                         << to_string(want) << "in chunks:\n"
                         << to_string(got);
  }
}

}  // namespace
}  // namespace racetrack::check_test
