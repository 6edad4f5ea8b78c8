// racetrack replay (host backend) on a trace given as a serialized Chunk:
// the arena plan and the host threads on the trace as it is (read without
// validation), then the CLI's path: replay_file with --stress, two runs,
// traced timing within a 1 ms budget, a small memory limit and -o, and both
// reports.
#include "fuzz_support.h"
#include "host_backend.h"
#include "racetrack/replay/replay.h"
#include "racetrack/traces/trace_io.h"

using namespace racetrack;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto chunk = fuzz::parse_chunk(data, size);
  if (!chunk) return -1;
  const fuzz::ScratchFile trace(".rtrace");
  fuzz::write_trace(*chunk, trace.path());

  if (auto source = TraceSource::open_unchecked(trace.path()))
    if (auto program = des::load_program(*source, des::CostModel{})) {
      const auto plan = replay::ArenaPlan::build(*program, 4, 1 << 20);
      const des::SequentialReference reference(*program);
      replay::HostRunOptions run;
      run.traced_timing = false;
      (void)replay::run_on_host(*program, plan, reference, run);
    }

  replay::ReplayOptions options;
  options.stress = true;
  options.stress_ns = 1000;
  options.repeat = 2;
  options.traced_budget_ns = 1'000'000;
  options.granule = 64;
  options.memory_limit = 1 << 20;
  options.check.min_confidence = race::Confidence::kPossible;
  const fuzz::ScratchFile timeline(".rtrace");
  options.output = timeline.path();
  auto report = replay::replay_file(trace.path(), options);
  if (!report) return 0;
  (void)replay::format_replay_text(*report);
  (void)replay::format_replay_json(*report);
  return 0;
}
