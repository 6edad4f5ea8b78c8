// racetrack sim on a trace given as a serialized Chunk: the simulator's
// program, engine and value tracking on the trace as it is (read without
// validation: the loader must refuse what it cannot model), then the CLI's
// path: simulate_file with --adversarial --apply-fixes, a jitter schedule
// and -o, and both reports.
#include "fuzz_support.h"
#include "racetrack/des/simulate.h"
#include "racetrack/traces/trace_io.h"

using namespace racetrack;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto chunk = fuzz::parse_chunk(data, size);
  if (!chunk) return -1;
  const fuzz::ScratchFile trace(".rtrace");
  fuzz::write_trace(*chunk, trace.path());

  if (auto source = TraceSource::open_unchecked(trace.path()))
    if (auto program = des::load_program(*source, des::CostModel{})) {
      des::Schedule schedule;
      schedule.jitter_sigma = 1.0;
      if (!program->ops.empty()) schedule.delays[0] = INT64_MAX;  // held back as long as can be
      const des::SequentialReference reference(*program);
      des::ValueTracker tracker(*program, reference);
      if (des::run(*program, schedule, &tracker)) tracker.finish();
    }

  des::SimOptions options;
  options.adversarial = true;
  options.apply_fixes = true;
  options.jitter_schedules = 1;
  options.check.min_confidence = race::Confidence::kPossible;
  const fuzz::ScratchFile timeline(".rtrace");
  options.output = timeline.path();
  auto report = des::simulate_file(trace.path(), options);
  if (!report) return 0;
  (void)des::format_sim_text(*report);
  (void)des::format_sim_json(*report);
  return 0;
}
