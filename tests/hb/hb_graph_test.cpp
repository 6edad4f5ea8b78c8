// The vector clocks (HappensBefore) and the explicit DAG (HbGraph) encode
// the same rules independently; on every sample and on synth traces they
// must agree on whether each op happens-before each later op.
#include "racetrack/hb/hb_graph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "racetrack/hb/happens_before.h"
#include "racetrack/traces/synth.h"
#include "racetrack/traces/trace_io.h"

namespace rt = racetrack;
using rt::hb::HappensBefore;
using rt::hb::HbGraph;

namespace {

// Every op's epoch, clock and PDL overlap (rule 1a) after applying it.
struct Orders {
  std::vector<rt::hb::Epoch> epochs;
  std::vector<rt::hb::VectorClock> clocks;
  std::vector<rt::hb::PdlUnordered> pdl;
  bool covers(size_t later, size_t earlier) const {
    const rt::hb::Epoch e = epochs[earlier];
    if (e.agent == epochs[later].agent && pdl[later].contains(e.tick)) return false;
    return clocks[later].covers(e);
  }
};

// Whether a PDL secondary waits, from the analyses the trace's modules
// store (what the checker reads without a code-mode table).
rt::hb::PdlWaitLookup stored_pdl_facts(const rt::v1::Chunk& trace) {
  auto waits = std::make_shared<std::map<std::pair<uint32_t, uint32_t>, rt::hb::PdlWait>>();
  for (const auto& m : trace.modules())
    for (const auto& f : m.functions())
      (*waits)[{m.id(), f.name()}] = !f.grid_dependency_wait()  ? rt::hb::PdlWait::kNone
                                     : f.accesses_before_wait() ? rt::hb::PdlWait::kAccessesBefore
                                                                : rt::hb::PdlWait::kWaits;
  return [waits](const rt::v1::Kernel& k) {
    auto it = waits->find({k.module(), k.name()});
    return it == waits->end() ? rt::hb::PdlWait::kUnknown : it->second;
  };
}

Orders vector_clock_orders(const rt::v1::Chunk& trace, const rt::hb::PdlWaitLookup& pdl) {
  HappensBefore hb;
  hb.add_entities(trace);
  hb.set_pdl_wait_lookup(pdl);
  Orders o;
  for (const auto& op : trace.ops()) {
    const auto order = hb.apply(op);
    o.epochs.push_back(order.epoch);
    o.clocks.push_back(*order.clock);
    o.pdl.push_back(order.pdl);
  }
  return o;
}

// Compares all pairs (or a sample of them for large traces); returns how
// many of the compared pairs are ordered.
#if defined(__SANITIZE_ADDRESS__)
constexpr size_t kMaxPairs = 4000;  // each pair is a graph search: slow under ASan
#else
constexpr size_t kMaxPairs = 40000;
#endif

size_t expect_agreement(const rt::v1::Chunk& trace, const std::string& what, size_t max_pairs = kMaxPairs) {
  const rt::hb::PdlWaitLookup pdl = stored_pdl_facts(trace);
  const Orders o = vector_clock_orders(trace, pdl);
  const auto& ops = trace.ops();
  const HbGraph graph = HbGraph::build(trace, ops[0].seq(), ops[ops.size() - 1].seq(), {}, pdl);
  const size_t n = static_cast<size_t>(ops.size());
  const size_t stride = std::max<size_t>(1, n * n / 2 / max_pairs);
  size_t compared = 0, ordered = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1 + (i % stride); j < n; j += stride) {
      const bool by_clock = o.covers(j, i);
      const bool by_graph = graph.ordered(ops[i].seq(), ops[j].seq());
      EXPECT_EQ(by_clock, by_graph) << what << ": #" << ops[i].seq() << " -> #" << ops[j].seq();
      ++compared;
      ordered += by_clock;
    }
  EXPECT_GT(compared, 0u) << what;
  return ordered;
}

}  // namespace

TEST(HbGraph, AgreesWithVectorClocksOnEverySample) {
  size_t samples = 0;
  for (const auto& entry : std::filesystem::directory_iterator(RACETRACK_SAMPLES_DIR)) {
    if (entry.path().extension() != ".pbtxt") continue;
    auto trace = rt::load_trace(entry.path().string());
    ASSERT_TRUE(trace) << trace.error().describe();
    expect_agreement(*trace, entry.path().filename().string());
    ++samples;
  }
  EXPECT_GE(samples, 26u);
}

TEST(HbGraph, AgreesWithVectorClocksOnSynthTraces) {
  for (auto schedule : {rt::Schedule::k1F1B, rt::Schedule::kSequential}) {
    rt::SynthOptions options;
    options.target_ops = 3000;
    options.layers = 2;
    options.microbatches = 3;
    options.schedule = schedule;
    options.inject.fill(1);
    const auto path = (std::filesystem::temp_directory_path() / "hb_graph_synth.rtrace").string();
    {
      auto writer = rt::TraceWriter::create(path);
      ASSERT_TRUE(writer);
      ASSERT_TRUE(rt::synthesize(options, *writer));
      ASSERT_TRUE(writer->close());
    }
    auto trace = rt::load_trace(path);
    ASSERT_TRUE(trace);
    EXPECT_GT(expect_agreement(*trace, "synth"), 100u);
  }
}

TEST(HbGraph, ChainNamesTheEdgesAndAProposedEdgeOrdersAnUnorderedPair) {
  auto trace = rt::load_trace(std::string(RACETRACK_SAMPLES_DIR) + "/megatron_inline_reload.race.pbtxt");
  ASSERT_TRUE(trace);
  const HbGraph graph = HbGraph::build(*trace, 1, 1000);
  // The racing pair of the manifest is unordered; the suggested event edge orders it.
  EXPECT_FALSE(graph.ordered(9, 13));
  EXPECT_TRUE(graph.ordered_with(9, 13, 9, 13));
  const auto clean =
      rt::load_trace(std::string(RACETRACK_SAMPLES_DIR) + "/megatron_inline_reload.clean.pbtxt");
  ASSERT_TRUE(clean);
  const auto chain = HbGraph::build(*clean, 1, 1000).chain(9, 14);
  ASSERT_FALSE(chain.empty());
  EXPECT_EQ(chain.front().from_seq, 9u);
  EXPECT_EQ(chain.back().to_seq, 14u);
  EXPECT_TRUE(std::any_of(chain.begin(), chain.end(),
                          [](const auto& e) { return e.kind == rt::hb::EdgeKind::kEvent; }));
}

TEST(HbGraph, TransitiveReductionKeepsReachabilityWithFewerEdges) {
  rt::SynthOptions options;
  options.target_ops = 1500;
  options.layers = 2;
  options.microbatches = 2;
  const auto path = (std::filesystem::temp_directory_path() / "hb_graph_reduction.rtrace").string();
  {
    auto writer = rt::TraceWriter::create(path);
    ASSERT_TRUE(rt::synthesize(options, *writer));
    ASSERT_TRUE(writer->close());
  }
  auto trace = rt::load_trace(path);
  ASSERT_TRUE(trace);
  const HbGraph graph = HbGraph::build(*trace, 1, 400);
  const auto reduced = graph.transitive_reduction();
  EXPECT_LT(reduced.size(), graph.edges().size());
  // Rebuild reachability from the reduced edges only and compare.
  std::map<uint64_t, std::vector<uint64_t>> next;
  for (const auto& e : reduced) next[e.from_seq].push_back(e.to_seq);
  auto reaches = [&](uint64_t a, uint64_t b) {
    std::vector<uint64_t> stack{a};
    std::set<uint64_t> seen{a};
    while (!stack.empty()) {
      const uint64_t u = stack.back();
      stack.pop_back();
      if (u == b) return true;
      for (uint64_t w : next[u])
        if (seen.insert(w).second) stack.push_back(w);
    }
    return false;
  };
  for (uint64_t a = 1; a <= 400; a += 7)
    for (uint64_t b = a + 1; b <= 400; b += 11)
      EXPECT_EQ(graph.ordered(a, b), reaches(a, b)) << a << " -> " << b;
}
