// racetrack why on a trace given as a serialized Chunk, between its first
// and last op: the happens-before DAG built from the chunk as it is (valid
// or not), its chains, a proposed extra edge and the transitive reduction,
// then the CLI's path (the DAG of the validated file and the chain).
#include "fuzz_support.h"
#include "racetrack/hb/hb_graph.h"

using namespace racetrack;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto chunk = fuzz::parse_chunk(data, size);
  if (!chunk) return -1;
  const auto [first, last] = fuzz::seq_span(*chunk);
  {
    const hb::HbGraph graph = hb::HbGraph::build(*chunk, first, last);
    (void)graph.chain(first, last);
    (void)graph.ordered_with(first, last, first, last);
    (void)graph.edges();
    if (graph.vertex_count() <= 2000) (void)graph.transitive_reduction();  // cubic
  }
  const fuzz::ScratchFile trace(".rtrace");
  fuzz::write_trace(*chunk, trace.path());
  if (auto graph = hb::HbGraph::build_from_file(trace.path(), first, last)) (void)graph->chain(first, last);
  return 0;
}
