// The binary container reader on arbitrary bytes: every way a command reads
// a .rtrace file (validated chunk stream, raw chunk reader, whole-trace
// load, validate). Nothing may crash, leak or allocate more than the
// container's limits allow; errors are values.
#include "fuzz_support.h"
#include "racetrack/traces/trace_io.h"
#include "racetrack/traces/validate.h"

using namespace racetrack;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::ScratchFile file(".rtrace");
  file.write(data, size);

  if (auto source = TraceSource::open(file.path()))
    for (;;) {
      auto chunk = source->read();
      if (!chunk || !*chunk) break;
    }
  if (auto reader = ChunkReader::open(file.path())) {
    v1::Chunk chunk;
    std::vector<uint64_t> offsets;
    for (;;) {
      offsets.push_back(reader->offset());
      auto more = reader->next(chunk);
      if (!more || !*more) break;
    }
    // Random access, as the viewer seeks to chunks it indexed.
    for (auto it = offsets.rbegin(); it != offsets.rend(); ++it)
      if (reader->seek(*it)) (void)reader->next(chunk);
  }
  (void)load_trace(file.path());
  (void)validate_file(file.path(), 10);
  return 0;
}
