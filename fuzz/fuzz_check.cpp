// racetrack check on a trace given as a serialized Chunk: the checker on
// the chunk as it is (valid or not: the library must not trust its input),
// then the CLI's path on it as a file: check_file's two passes (hazards,
// then explanations and the re-check with every fix applied), both
// reports, and --emit-fixed with the fixed trace checked again.
#include <sstream>

#include "fuzz_support.h"
#include "racetrack/race/report.h"

using namespace racetrack;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto chunk = fuzz::parse_chunk(data, size);
  if (!chunk) return -1;
  race::CheckOptions options;
  options.min_confidence = race::Confidence::kPossible;
  options.keep_all = true;
  race::ReportOptions report;
  report.min_confidence = options.min_confidence;
  report.list_all = true;
  {
    const race::CheckResult unchecked = race::check_trace(*chunk, options);
    (void)race::format_text(unchecked, report);
    std::ostringstream json;
    race::write_json(json, unchecked, report);
  }

  const fuzz::ScratchFile trace(".rtrace");
  fuzz::write_trace(*chunk, trace.path());
  auto result = race::check_file(trace.path(), options);
  if (!result) return 0;
  report.trace_path = trace.path();
  (void)race::format_text(*result, report);
  std::ostringstream json;
  race::write_json(json, *result, report);
  const fuzz::ScratchFile fixed(".rtrace");
  if (race::write_fixed_trace(trace.path(), fixed.path(), race::fix_edits(*result)))
    (void)race::check_file(fixed.path(), options);
  return 0;
}
