// The JSON parser on arbitrary bytes, through the reader every
// command uses (a validated whole-trace load) and `racetrack validate`.
#include "fuzz_support.h"
#include "racetrack/traces/trace_io.h"
#include "racetrack/traces/validate.h"

using namespace racetrack;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::ScratchFile file(".json");
  file.write(data, size);
  (void)load_trace(file.path());
  (void)validate_file(file.path(), 10);
  return 0;
}
