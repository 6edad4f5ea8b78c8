// The samples' manifest (traces/samples/manifest.json) as an oracle: every
// sample yields exactly its listed hazards, clean samples check clean, and
// the fixes of every race sample are verified and write a trace that checks
// clean.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "check_test_support.h"
#include "racetrack/traces/describe.h"
#include "racetrack/traces/trace_io.h"
#include "test_support.h"

namespace racetrack::check_test {
namespace {

using nlohmann::json;
using racetrack::testing::TempDir;

const std::string kSamples = RACETRACK_SAMPLES_DIR;

// (first_seq, second_seq, kind, class, space, address, bytes, region)
using Verdict =
    std::tuple<uint64_t, uint64_t, std::string, std::string, std::string, std::string, uint64_t, std::string>;

std::string describe(const std::set<Verdict>& verdicts) {
  std::string out;
  for (const auto& [first, second, kind, cls, space, address, bytes, region] : verdicts)
    out += "  #" + std::to_string(first) + " -> #" + std::to_string(second) + " " + kind + " " + cls + " " +
           space + " " + address + " +" + std::to_string(bytes) + " " + region + "\n";
  return out.empty() ? "  (none)\n" : out;
}

struct Sample {
  std::string file;
  std::set<Verdict> hazards;
};

std::vector<Sample> manifest() {
  std::ifstream in(kSamples + "/manifest.json");
  const json m = json::parse(in);
  std::vector<Sample> out;
  for (const json& s : m.at("samples")) {
    Sample sample{s.at("file").get<std::string>(), {}};
    for (const json& h : s.at("hazards"))
      sample.hazards.insert({h.at("first_seq").get<uint64_t>(), h.at("second_seq").get<uint64_t>(),
                             h.at("kind").get<std::string>(), h.at("class").get<std::string>(),
                             h.at("space").get<std::string>(), h.at("address").get<std::string>(),
                             h.at("bytes").get<uint64_t>(), h.at("region").get<std::string>()});
    out.push_back(std::move(sample));
  }
  return out;
}

std::string space_word(v1::AddressSpace space) {
  switch (space) {
    case v1::SPACE_PINNED_HOST: return "pinned";
    case v1::SPACE_PAGEABLE_HOST: return "pageable";
    default: return "device";
  }
}

// What the checker says about a sample, in the manifest's terms; the overlap
// lies in the second op's region.
std::set<Verdict> verdicts(const std::string& path) {
  auto trace = load_trace(path);
  EXPECT_TRUE(trace.ok()) << trace.error().describe();
  race::CheckOptions options = keep_all_options();
  options.explain_and_fix = false;
  auto result = race::check_file(path, options);
  EXPECT_TRUE(result.ok()) << result.error().describe();
  std::set<Verdict> out;
  if (!trace.ok() || !result.ok()) return out;
  for (const race::Hazard& h : result->all) {
    const uint32_t region = h.second.access.region;
    const v1::Region* r = region ? &trace->regions(static_cast<int>(region) - 1) : nullptr;
    out.insert({h.first.seq, h.second.seq, std::string(race::kind_name(h.kind)),
                std::string(race::class_name(h.cls)), r ? space_word(r->space()) : "?", hex(h.lo),
                h.hi - h.lo, r ? std::string(result->tables->string(r->label())) : "?"});
  }
  return out;
}

TEST(Samples, ManifestListsEverySample) {
  const auto samples = manifest();
  std::set<std::string> listed;
  for (const Sample& s : samples) listed.insert(s.file);
  std::set<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(kSamples))
    if (entry.path().extension() == ".pbtxt") on_disk.insert(entry.path().filename().string());
  EXPECT_EQ(listed, on_disk);
  EXPECT_GE(samples.size(), 20u);
}

TEST(Samples, EachMeetsItsVerdictExactly) {
  for (const Sample& s : manifest()) {
    const std::set<Verdict> got = verdicts(kSamples + "/" + s.file);
    EXPECT_EQ(got, s.hazards) << s.file << "\nexpected:\n"
                              << describe(s.hazards) << "got:\n"
                              << describe(got);
  }
}

TEST(Samples, CleanSamplesCheckClean) {
  for (const Sample& s : manifest()) {
    if (!s.hazards.empty()) continue;
    auto result = race::check_file(kSamples + "/" + s.file, keep_all_options());
    ASSERT_TRUE(result.ok()) << result.error().describe();
    EXPECT_TRUE(result->all.empty()) << s.file;
    EXPECT_EQ(result->shown_groups(), 0u) << s.file;
  }
}

TEST(Samples, RaceFixesAreVerifiedAndTheFixedTraceChecksClean) {
  TempDir dir;
  for (const Sample& s : manifest()) {
    if (s.hazards.empty()) continue;
    SCOPED_TRACE(s.file);
    const std::string path = kSamples + "/" + s.file;
    auto result = race::check_file(path, race::CheckOptions{});
    ASSERT_TRUE(result.ok()) << result.error().describe();
    ASSERT_GT(result->shown_groups(), 0u);
    EXPECT_TRUE(result->fixes_checked);
    EXPECT_TRUE(result->fixes_verified) << result->hazards_after_fixes << " hazard(s) left";
    for (const race::HazardGroup& g : result->groups) {
      EXPECT_TRUE(g.fix.available) << g.signature << ": " << g.fix.text;
      EXPECT_TRUE(g.fix.verified) << g.signature;
      EXPECT_FALSE(g.explanation.empty()) << g.signature;
    }
    const std::string fixed = dir.path(s.file);  // .pbtxt: the text encoding
    const Status written = race::write_fixed_trace(path, fixed, race::fix_edits(*result));
    ASSERT_TRUE(written.ok()) << written.error().describe();
    auto trace = load_trace(fixed);
    ASSERT_TRUE(trace.ok()) << trace.error().describe();
    EXPECT_EQ(validation_errors(*trace), std::vector<std::string>{});
    auto again = race::check_file(fixed, keep_all_options());
    ASSERT_TRUE(again.ok()) << again.error().describe();
    EXPECT_TRUE(again->all.empty()) << to_string(hazard_set(*again));
  }
}

}  // namespace
}  // namespace racetrack::check_test
