// racetrack synth: identical bytes for identical options and seed; a ground
// truth whose every pair exists, overlaps on different streams and is
// unordered; clean traces without injected hazards; flat memory with size.
#include "racetrack/traces/synth.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <set>

#include "racetrack/code/access_modes.h"
#include "racetrack/hb/hb_graph.h"
#include "racetrack/race/access.h"
#include "racetrack/traces/trace_io.h"
#include "racetrack/traces/validate.h"
#include "run_cli.h"
#include "test_support.h"

namespace rt = racetrack;
using rt::testing::TempDir;

namespace {

rt::SynthResult synth_to(const std::string& path, const rt::SynthOptions& options) {
  auto writer = rt::TraceWriter::create(path, options.writer);
  EXPECT_TRUE(writer);
  auto result = rt::synthesize(options, *writer);
  EXPECT_TRUE(result) << (result ? "" : result.error().describe());
  EXPECT_TRUE(writer->close());
  return result ? *result : rt::SynthResult{};
}

rt::SynthOptions small(bool known_modes = true) {
  rt::SynthOptions o;
  o.target_ops = 20000;
  o.known_modes = known_modes;
  o.analyzer_version = rt::code::kAnalyzerVersion;  // C15's stored analysis
  return o;
}

// Every op's resolved byte ranges, keyed by seq.
std::map<uint64_t, std::vector<rt::race::ResolvedAccess>> accesses_by_seq(const rt::v1::Chunk& trace) {
  rt::TraceTables tables;
  tables.add(trace);
  rt::race::AccessResolver resolver;
  resolver.add_entities(trace, tables);
  std::map<uint64_t, std::vector<rt::race::ResolvedAccess>> out;
  for (const auto& op : trace.ops()) {
    resolver.on_op(op);
    resolver.resolve(op, out[op.seq()]);
  }
  return out;
}

// Peak resident memory of a child process that synthesises `ops` ops.
double child_peak_mib(const std::string& path, uint64_t ops) {
  const pid_t pid = fork();
  if (pid == 0) {
    rt::SynthOptions o;
    o.target_ops = ops;
    auto writer = rt::TraceWriter::create(path, o.writer);
    const bool ok = writer && rt::synthesize(o, *writer) && writer->close();
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

}  // namespace

TEST(Synth, SameOptionsAndSeedGiveIdenticalBytes) {
  TempDir dir;
  rt::SynthOptions o = small();
  o.inject.fill(1);
  const auto a = synth_to(dir.path("a.rtrace"), o);
  const auto b = synth_to(dir.path("b.rtrace"), o);
  EXPECT_EQ(rt::testing::read_bytes(dir.path("a.rtrace")), rt::testing::read_bytes(dir.path("b.rtrace")));
  EXPECT_EQ(rt::ground_truth_json(o, a), rt::ground_truth_json(o, b));
  o.seed = 2;
  synth_to(dir.path("c.rtrace"), o);
  EXPECT_NE(rt::testing::read_bytes(dir.path("a.rtrace")), rt::testing::read_bytes(dir.path("c.rtrace")));
}

TEST(Synth, TracesValidateAndHaveTheModelledShape) {
  TempDir dir;
  for (bool known : {true, false}) {
    const auto result = synth_to(dir.path("t.rtrace"), small(known));
    const auto report = rt::validate_file(dir.path("t.rtrace"));
    EXPECT_EQ(report.error_count, 0u) << (report.errors.empty() ? "" : report.errors[0].describe());
    EXPECT_GE(result.ops, 20000u);
    EXPECT_LT(result.ops, 30000u);  // approximate: whole iterations
    auto trace = rt::load_trace(dir.path("t.rtrace"));
    ASSERT_TRUE(trace);
    ASSERT_EQ(trace->streams_size(), 7);
    std::map<std::string, int> kinds;
    bool device_times = true, known_accesses = false;
    int captures = 0, replays = 0, external = 0;
    bool in_capture = false;
    for (const auto& op : trace->ops()) {
      captures += op.has_capture();
      replays += op.has_graph() && op.graph().captured_seq() && op.graph().nodes_size() > 0;
      external += op.has_annotation() && op.annotation().kind() == rt::v1::ANNOTATE_EXTERNAL_ACCESS &&
                  op.annotation().done_event();
      ++kinds[std::string(rt::op_kind_name(rt::op_kind(op)))];
      if (op.has_capture()) in_capture = op.capture().phase() == rt::v1::CAPTURE_BEGIN;
      // Captured kernels do not run; their graph's launches do.
      const bool runs = op.has_memcpy() || op.has_graph() || (op.has_kernel() && !in_capture);
      if (runs && !op.has_device_start()) device_times = false;
      if (op.has_kernel() && op.kernel().accesses_size() > 0) known_accesses = true;
    }
    EXPECT_TRUE(device_times);
    EXPECT_EQ(known_accesses, known) << "kernels carry accesses only with known modes";
    for (const char* k : {"kernel", "memcpy", "record", "wait", "query", "sync", "hostaccess"})
      EXPECT_GT(kinds[k], 0) << k;
    EXPECT_EQ(kinds["memset"], 0) << "only C13 zero-fills";
    EXPECT_EQ(captures, 2) << "the optimizer step is captured once";
    EXPECT_EQ(static_cast<uint64_t>(replays), result.iterations - 1) << "and replayed after the warm-up";
    EXPECT_EQ(static_cast<uint64_t>(external), result.iterations) << "a checkpoint shard per iteration";
    EXPECT_EQ(kinds["alloc"] > 100, known) << "allocator blocks are visible only with known modes";
  }
}

TEST(Synth, GroundTruthPairsExistOverlapOnDifferentStreamsAndAreUnordered) {
  TempDir dir;
  for (bool known : {true, false}) {
    rt::SynthOptions o = small(known);
    o.target_ops = 40000;
    o.inject.fill(2);
    const auto result = synth_to(dir.path("t.rtrace"), o);
    // Raw words carry no allocator frees, so C16 is never placed there.
    ASSERT_GE(result.injected.size(), 2u * rt::kHazardShapeCount - (known ? 4 : 6))
        << "most injections find a place";
    auto trace = rt::load_trace(dir.path("t.rtrace"));
    ASSERT_TRUE(trace);
    const auto accesses = accesses_by_seq(*trace);
    std::map<uint64_t, const rt::v1::Op*> ops;
    for (const auto& op : trace->ops()) ops[op.seq()] = &op;
    const auto graph = rt::hb::HbGraph::build(*trace, 1, trace->ops(trace->ops_size() - 1).seq());
    for (const auto& h : result.injected) {
      SCOPED_TRACE(std::string(rt::shape_name(h.shape)) + " " + std::to_string(h.first_seq) + " -> " +
                   std::to_string(h.second_seq));
      ASSERT_TRUE(ops.count(h.first_seq) && ops.count(h.second_seq));
      EXPECT_LT(h.first_seq, h.second_seq);
      const auto* a = ops[h.first_seq];
      const auto* b = ops[h.second_seq];
      const auto stream_of = [](const rt::v1::Op& op) { return op.has_host_access() ? 0u : op.stream(); };
      if (h.shape == rt::HazardShape::kC16) {
        // A use after free whatever the order: the free and the replay on compute.
        EXPECT_TRUE(a->has_free() && b->has_graph());
        EXPECT_EQ(stream_of(*a), stream_of(*b));
        continue;
      }
      if (h.shape == rt::HazardShape::kC16Unjoined) {
        // The side stream's captured kernel writing the norm, and the capture's end.
        EXPECT_TRUE(a->has_kernel() && b->has_capture() && b->capture().phase() == rt::v1::CAPTURE_END);
        EXPECT_NE(stream_of(*a), stream_of(*b));
        continue;
      }
      if (h.shape == rt::HazardShape::kC15) {
        // One stream: the second is a PDL launch right behind the first.
        EXPECT_EQ(stream_of(*a), stream_of(*b));
        EXPECT_TRUE(a->has_kernel() && b->has_kernel() && b->kernel().programmatic_stream_serialization());
        EXPECT_EQ(h.second_seq, h.first_seq + 1);
      } else {
        EXPECT_NE(stream_of(*a), stream_of(*b));
      }
      if (h.shape == rt::HazardShape::kC14) {
        // The first op is the record where the storage DMA's read of the
        // weight, declared just before it, is observed complete.
        const auto* declared = ops[h.first_seq - 1];
        ASSERT_TRUE(a->has_record() && declared->has_annotation());
        EXPECT_EQ(declared->annotation().done_event(), a->record().event());
        EXPECT_EQ(declared->annotation().access().size(), h.bytes);
        EXPECT_TRUE(b->has_graph());
        EXPECT_FALSE(graph.ordered(h.first_seq, h.second_seq));
        continue;
      }
      bool overlap = false;
      for (const auto& x : accesses.at(h.first_seq))
        for (const auto& y : accesses.at(h.second_seq))
          // With raw words the resolver's inferred blocks may be narrower
          // than the tensor (C10's split copy puts a pointer in a block's
          // middle): there the pair only has to overlap.
          overlap |= x.space == y.space && x.lo < y.hi && y.lo < x.hi && (x.writes || y.writes) &&
                     (!known || (x.lo <= h.address && h.address + h.bytes <= x.hi));
      // (C10's consumer read is narrowed to the first half, which its pair
      // does not write.)
      if (known || h.shape != rt::HazardShape::kC10) {
        EXPECT_TRUE(overlap);
      }
      if (h.shape != rt::HazardShape::kC15) {  // stream order, but for PDL (hb_graph has no rule 1a)
        EXPECT_FALSE(graph.ordered(h.first_seq, h.second_seq));
      }
    }
  }
}

TEST(Synth, EveryShapeIsPlacedUnder1F1BAndInjectFromIterationIsHonoured) {
  TempDir dir;
  rt::SynthOptions o = small();
  o.inject.fill(1);
  o.inject_from_iteration[static_cast<int>(rt::HazardShape::kC5)] = 4;
  const auto result = synth_to(dir.path("t.rtrace"), o);
  std::map<rt::HazardShape, uint64_t> placed;
  for (const auto& h : result.injected) placed[h.shape] = h.iteration;
  EXPECT_EQ(placed.size(), static_cast<size_t>(rt::kHazardShapeCount));
  EXPECT_GE(placed[rt::HazardShape::kC5], 4u);
  for (auto n : result.not_placed) EXPECT_EQ(n, 0u);
}

TEST(Synth, CleanTracesHaveNoInjectedHazard) {
  TempDir dir;
  const auto result = synth_to(dir.path("t.rtrace"), small());
  EXPECT_TRUE(result.injected.empty());
  EXPECT_THAT(rt::ground_truth_json(small(), result), testing::HasSubstr("\"injected\": []"));
}

TEST(Synth, MemoryStaysFlatAsTheTraceGrows) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "peak memory is not meaningful under AddressSanitizer";
#endif
  TempDir dir;
  const double small_peak = child_peak_mib(dir.path("s.rtrace"), 100000);
  const double large_peak = child_peak_mib(dir.path("l.rtrace"), 1000000);
  // Ten times the ops, essentially the same memory (the bench shows 10^7).
  EXPECT_LT(large_peak, small_peak + 24.0) << small_peak << " MiB vs " << large_peak << " MiB";
}

TEST(Synth, CommandLineWritesTraceAndTruthAndRejectsBadFlags) {
  TempDir dir;
  const std::string out = rt::testing::shell_quote(dir.path("cli.rtrace"));
  auto run = rt::testing::run_cli(dir, "synth --seed 3 --ops 5000 -o " + out + " --inject C1 --inject C5:2");
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, testing::HasSubstr("injected hazard(s) listed in"));
  EXPECT_THAT(rt::testing::read_bytes(dir.path("cli.rtrace.truth.json")),
              testing::HasSubstr("\"shape\": \"C5\""));
  run = rt::testing::run_cli(dir, "synth --seed 3 --ops 5000 -o " + out + " --inject C6:2,C15 --inject C12");
  EXPECT_EQ(run.code, 0) << run.err;
  const std::string truth = rt::testing::read_bytes(dir.path("cli.rtrace.truth.json"));
  for (const char* shape : {"\"C6\"", "\"C12\"", "\"C15\""}) EXPECT_THAT(truth, testing::HasSubstr(shape));
  EXPECT_EQ(rt::testing::run_cli(dir, "synth -o " + out + " --inject C17").code, 2);
  EXPECT_EQ(rt::testing::run_cli(dir, "synth -o " + out + " --layers 0").code, 2);
  EXPECT_EQ(rt::testing::run_cli(dir, "synth -o " + out + " --schedule zigzag").code, 2);
  EXPECT_EQ(rt::testing::run_cli(dir, "synth -o /nonexistent/dir/x.rtrace").code, 2);
}

// synth --modes code: the raw trace's argument words, plus one module whose
// stored analysis is true to what every kernel reads and writes (the known-
// modes trace of the same seed says which words those are).
namespace {

rt::SynthOptions code_modes(uint64_t seed) {
  rt::SynthOptions o = small(false);
  o.seed = seed;
  o.code_modes = true;
  o.analyzer_version = rt::code::kAnalyzerVersion;
  o.inject.fill(1);
  return o;
}

// The kernels launched outside captures (C16 captures the graph again with
// known modes only), and the names of all, captured ones too.
std::vector<const rt::v1::Kernel*> kernels_of(const rt::v1::Chunk& trace,
                                              std::set<std::string>* names = nullptr) {
  std::vector<const rt::v1::Kernel*> out;
  bool in_capture = false;
  for (const auto& op : trace.ops()) {
    if (op.has_capture()) in_capture = op.capture().phase() == rt::v1::CAPTURE_BEGIN;
    if (!op.has_kernel()) continue;
    if (names) names->insert(trace.strings(static_cast<int>(op.kernel().name()) - 1));
    if (!in_capture) out.push_back(&op.kernel());
  }
  return out;
}

}  // namespace

TEST(SynthCodeModes, RawWordsPlusAModuleTrueToEveryKernel) {
  TempDir dir;
  for (uint64_t seed : {1, 2}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    rt::SynthOptions raw = code_modes(seed), known = code_modes(seed);
    raw.code_modes = false;
    known.code_modes = false;
    known.known_modes = true;
    synth_to(dir.path("code.rtrace"), code_modes(seed));
    synth_to(dir.path("raw.rtrace"), raw);
    synth_to(dir.path("known.rtrace"), known);
    const auto report = rt::validate_file(dir.path("code.rtrace"));
    EXPECT_EQ(report.error_count, 0u) << (report.errors.empty() ? "" : report.errors[0].describe());
    auto code_trace = rt::load_trace(dir.path("code.rtrace"));
    auto raw_trace = rt::load_trace(dir.path("raw.rtrace"));
    auto known_trace = rt::load_trace(dir.path("known.rtrace"));
    ASSERT_TRUE(code_trace && raw_trace && known_trace);

    ASSERT_EQ(code_trace->modules_size(), 1);
    const rt::v1::Module& module = code_trace->modules(0);
    EXPECT_TRUE(module.image().empty());
    EXPECT_EQ(code_trace->strings(static_cast<int>(module.name()) - 1), "synth");
    std::map<std::string, const rt::v1::FunctionCode*> functions;
    for (const auto& f : module.functions()) {
      EXPECT_EQ(f.analyzer_version(), rt::code::kAnalyzerVersion);
      functions[code_trace->strings(static_cast<int>(f.name()) - 1)] = &f;
    }

    std::set<std::string> launched;
    const auto code_kernels = kernels_of(*code_trace, &launched), raw_kernels = kernels_of(*raw_trace),
               known_kernels = kernels_of(*known_trace);
    ASSERT_EQ(code_kernels.size(), raw_kernels.size());
    // Allocator ops make known iterations longer, so fewer of them fit: the
    // kernels of the iterations both traces have.
    ASSERT_GT(known_kernels.size(), 1000u);
    for (size_t i = 0; i < code_kernels.size(); ++i) {
      const rt::v1::Kernel& k = *code_kernels[i];
      const std::string name = code_trace->strings(static_cast<int>(k.name()) - 1);
      SCOPED_TRACE("kernel " + std::to_string(i) + " " + name);
      EXPECT_EQ(k.module(), module.id());
      EXPECT_EQ(k.accesses_size(), 0);
      ASSERT_EQ(k.arg_words_size(), raw_kernels[i]->arg_words_size());
      for (int w = 0; w < k.arg_words_size(); ++w) EXPECT_EQ(k.arg_words(w), raw_kernels[i]->arg_words(w));
      ASSERT_TRUE(functions.count(name));
      const rt::v1::FunctionCode& f = *functions[name];
      ASSERT_EQ(f.words_size(), k.arg_words_size());
      if (i >= known_kernels.size()) continue;
      ASSERT_EQ(known_trace->strings(static_cast<int>(known_kernels[i]->name()) - 1), name);
      // The known trace's accesses say which word each tensor came from.
      std::vector<int> expected(static_cast<size_t>(f.words_size()), rt::v1::WORD_NONE);
      for (const auto& a : known_kernels[i]->accesses()) {
        ASSERT_GE(a.arg_index(), 1u);
        // MODE_READ / _WRITE / _READ_WRITE have the values of WORD_READ / _WRITE / _READ_WRITE.
        expected[a.arg_index() - 1] |= static_cast<int>(a.mode());
      }
      for (int w = 0; w < f.words_size(); ++w) EXPECT_EQ(f.words(w), expected[static_cast<size_t>(w)]) << w;
    }
    EXPECT_EQ(launched.size(), functions.size()) << "every kernel of the module is launched";
  }
}

TEST(SynthCodeModes, CommandLineWritesTheModule) {
  TempDir dir;
  const std::string out = rt::testing::shell_quote(dir.path("code.rtrace"));
  auto run = rt::testing::run_cli(dir, "synth --ops 5000 --modes code -o " + out);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(rt::testing::read_bytes(dir.path("code.rtrace.truth.json")),
              testing::HasSubstr("\"modes\": \"code\""));
  auto modes = rt::testing::run_cli(dir, "modes " + out);
  EXPECT_EQ(modes.code, 0) << modes.err;
  EXPECT_THAT(modes.out, testing::HasSubstr("trace-functions"));
  EXPECT_THAT(modes.out, testing::HasSubstr("indexSelectLargeIndex"));
}
