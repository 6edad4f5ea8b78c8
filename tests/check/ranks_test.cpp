// Checking the ranks of a distributed run at once (docs/distributed.md):
// the merged report, the pool, and NCCL kernels named as collectives.
#include <gtest/gtest.h>

#include <fstream>

#include "racetrack/race/check_many.h"
#include "racetrack/race/collectives.h"
#include "racetrack/race/rank_merge.h"
#include "racetrack/traces/synth.h"
#include "racetrack/traces/trace_io.h"
#include "test_support.h"

namespace racetrack::check_test {
namespace {

using json = nlohmann::ordered_json;
using racetrack::testing::TempDir;

// A single-trace report with one group per (signature, confidence, count, first seq).
struct GroupSpec {
  std::string signature, confidence;
  uint64_t count, first_seq;
};
race::RankReport report(const std::string& path, int rank, const std::vector<GroupSpec>& groups) {
  json r;
  r["trace"] = path;
  r["rank"] = rank >= 0 ? json(rank) : json(nullptr);
  r["host"] = "node" + std::to_string(rank < 0 ? 9 : rank / 2);
  r["ops"] = 100;
  r["hazard_counts"] = {{"total", groups.size()}};
  r["groups"] = json::array();
  for (const GroupSpec& g : groups) {
    json side = {{"seq", g.first_seq}, {"display_name", "kernel k"}, {"stream", "compute"}};
    json second = side;
    second["seq"] = g.first_seq + 5;
    r["groups"].push_back({{"signature", g.signature},
                           {"count", g.count},
                           {"confidence", g.confidence},
                           {"shown", g.confidence != "possible"},
                           {"suppressed", false},
                           {"hazard",
                            {{"kind", "raw"},
                             {"class", "communication"},
                             {"first", side},
                             {"second", second},
                             {"overlap", {{"bytes", 64}}}}},
                           {"explanation", "why " + path},
                           {"fix", {{"text", "fix " + path}, {"pytorch", nullptr}}},
                           {"settle", nullptr}});
  }
  return {path, std::nullopt, r};
}

TEST(RankMerge, OneGroupPerSignatureWithItsRanksAndTheStrongestInstance) {
  std::vector<race::RankReport> ranks = {
      report("r2.rtrace", 2, {{"A", "likely", 3, 40}, {"B", "possible", 1, 7}}),
      report("r0.rtrace", 0, {{"A", "definite", 1, 10}}),
      report("r1.rtrace", 1, {}),
  };
  ranks.push_back({"r3.rtrace", std::string("r3.rtrace: offset 0: not a racetrack trace"), {}});
  const json m = race::merge_rank_reports(ranks);
  EXPECT_EQ(m["summary"]["traces"], 4);
  EXPECT_EQ(m["summary"]["checked"], 3);
  EXPECT_EQ(m["summary"]["failed"], 1);
  EXPECT_EQ(m["summary"]["shown_groups"], 1);
  // Traces by rank; the unreadable one (no rank known) last.
  ASSERT_EQ(m["traces"].size(), 4u);
  EXPECT_EQ(m["traces"][0]["rank"], 0);
  EXPECT_EQ(m["traces"][2]["rank"], 2);
  EXPECT_FALSE(m["traces"][3]["checked"].get<bool>());
  EXPECT_EQ(m["traces"][3]["error"], "r3.rtrace: offset 0: not a racetrack trace");

  ASSERT_EQ(m["groups"].size(), 2u);
  const json& a = m["groups"][0];
  EXPECT_EQ(a["signature"], "A");
  EXPECT_EQ(a["ranks"], json({0, 2}));
  EXPECT_EQ(a["count"], 4);
  EXPECT_EQ(a["confidence"], "definite") << "the strongest over the ranks";
  EXPECT_EQ(a["fix"]["text"], "fix r0.rtrace") << "the strongest instance's report speaks";
  ASSERT_EQ(a["occurrences"].size(), 2u);
  EXPECT_EQ(a["occurrences"][0]["rank"], 0);
  EXPECT_EQ(a["occurrences"][0]["first_seq"], 10);
  EXPECT_EQ(a["occurrences"][1]["rank"], 2);
  EXPECT_EQ(a["occurrences"][1]["second_seq"], 45);
  EXPECT_FALSE(m["groups"][1]["shown"].get<bool>()) << "shown groups come first";

  const std::string text = race::format_ranks_text(m, 20);
  EXPECT_NE(text.find("4 traces, 3 checked, 1 could not be checked"), std::string::npos) << text;
  EXPECT_NE(text.find("on 2 of 3 trace(s) (rank 0, 2), 4 time(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("on rank 2 on node1 (r2.rtrace): first #40 -> #45"), std::string::npos) << text;
  EXPECT_NE(text.find("NOT CHECKED: r3.rtrace"), std::string::npos) << text;
  EXPECT_NE(text.find("1 more group(s) below the confidence shown"), std::string::npos) << text;
}

TEST(RankMerge, NothingShownIsNotCalledClean) {
  const json m = race::merge_rank_reports({report("a.rtrace", 0, {{"P", "possible", 2, 1}})});
  const std::string text = race::format_ranks_text(m, 20);
  EXPECT_NE(text.find("not known to be clean"), std::string::npos) << text;
  const json clean = race::merge_rank_reports({report("a.rtrace", 0, {})});
  EXPECT_NE(race::format_ranks_text(clean, 20).find("no hazard shown on any trace"), std::string::npos);
}

std::string synth_rank(TempDir& dir, int rank, bool inject) {
  SynthOptions o;
  o.seed = 1 + static_cast<uint64_t>(rank);
  o.target_ops = 12000;
  o.world_size = 3;
  o.rank = rank;
  o.host = "node0";
  if (inject) o.inject[static_cast<int>(HazardShape::kC12Bucket)] = 1;
  const std::string path = dir.path("rank-" + std::to_string(rank) + ".rtrace");
  auto writer = TraceWriter::create(path);
  EXPECT_TRUE(writer.ok());
  auto result = synthesize(o, *writer);
  EXPECT_TRUE(result.ok());
  EXPECT_TRUE(writer->close().ok());
  return path;
}

TEST(CheckMany, EveryTraceInItsSlotTheUnreadableOnesWithTheirError) {
  TempDir dir;
  const std::vector<std::string> paths = {synth_rank(dir, 0, true), dir.path("missing.rtrace"),
                                          synth_rank(dir, 1, false), synth_rank(dir, 2, true)};
  race::ManyOptions options;
  options.jobs = 2;
  size_t progress_calls = 0;
  options.progress = [&](size_t done, size_t total) {
    ++progress_calls;
    EXPECT_LE(done, total);
  };
  race::PoolSize size;
  const auto reports = race::check_many(paths, options, &size);
  ASSERT_EQ(reports.size(), 4u);
  EXPECT_EQ(progress_calls, 4u);
  EXPECT_EQ(size.jobs, 2u);
  EXPECT_GT(size.peak_bytes, 0u) << "the first check's peak was measured";
  ASSERT_TRUE(reports[1].error);
  EXPECT_NE(reports[1].error->find("missing.rtrace"), std::string::npos);
  for (size_t i : {0u, 2u, 3u}) {
    ASSERT_FALSE(reports[i].error) << *reports[i].error;
    EXPECT_EQ(reports[i].path, paths[i]);
    EXPECT_EQ(reports[i].report["rank"], i == 0 ? 0 : static_cast<int>(i) - 1);
    EXPECT_EQ(reports[i].report["host"], "node0");
  }
  const json m = race::merge_rank_reports(reports);
  bool bucket = false;
  for (const json& g : m["groups"])
    if (g["shown"].get<bool>() && g["hazard"]["class"] == "communication") {
      bucket = true;
      EXPECT_EQ(g["ranks"], json({0, 2})) << "the ranks C12_bucket was injected on";
    }
  EXPECT_TRUE(bucket);
}

TEST(CheckMany, ThePoolIsBoundedByCoresTracesAndMemory) {
  TempDir dir;
  std::vector<std::string> paths;
  for (int i = 0; i < 6; ++i) {
    paths.push_back(dir.path("t" + std::to_string(i)));
    std::ofstream(paths.back()) << std::string(1000, 'x');
  }
  EXPECT_EQ(race::pool_jobs(paths, 100 << 20, 0, 16), 5u) << "no more threads than traces after the first";
  EXPECT_EQ(race::pool_jobs(paths, 100 << 20, 0, 2), 2u);
  // 100 MiB measured, a quarter more per check: 1 GiB holds 8 of them.
  EXPECT_EQ(race::pool_jobs(paths, 100 << 20, 1ull << 30, 4), 4u);
  EXPECT_EQ(race::pool_jobs(paths, 400 << 20, 1ull << 30, 4), 2u);
  EXPECT_EQ(race::pool_jobs(paths, 4000ull << 20, 1ull << 30, 4), 1u) << "always at least one";
  // A larger file than the first scales its estimate.
  std::ofstream(paths[3]) << std::string(4000, 'x');
  EXPECT_EQ(race::pool_jobs(paths, 100 << 20, 1ull << 30, 4), 2u);
}

TEST(Collectives, NcclKernelsAreNamedAsTheirCollective) {
  EXPECT_EQ(race::collective_of("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            "AllReduce");
  EXPECT_EQ(race::collective_of("ncclKernel_AllGather_RING_LL_Sum_int8_t"), "AllGather");
  EXPECT_EQ(race::collective_of("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"), "SendRecv");
  EXPECT_EQ(race::collective_of("void at::native::vectorized_elementwise_kernel<4>"), "");
  EXPECT_EQ(race::collective_of("nccl"), "");
}

}  // namespace
}  // namespace racetrack::check_test
