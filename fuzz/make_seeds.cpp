// Writes the seed corpora of the fuzz targets (docs/fuzzing.md): every
// sample trace (traces/samples/*.pbtxt) and a few small synth traces (with
// every hazard shape injected, known and raw modes, both schedules), as
// serialized chunks for the analysis targets, as binary containers
// (compressed and not) for the container target, and as text and JSON for
// the parsers; and the readable regression chunks
// (tests/fuzz_regressions/chunks/*.chunk.pbtxt) for the analysis targets.
//
//   fuzz_make_seeds OUT_DIR SAMPLES_DIR REGRESSIONS_DIR
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "racetrack/traces/synth.h"
#include "racetrack/traces/trace_io.h"

namespace fs = std::filesystem;
using namespace racetrack;

namespace {

const char* const kChunkTargets[] = {"check", "sim", "replay", "why"};

bool write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  return static_cast<bool>(out);
}

bool add_seeds(const fs::path& out, const std::string& name, const v1::Chunk& trace) {
  bool ok = true;
  const std::string wire = trace.SerializeAsString();
  for (const char* target : kChunkTargets) ok &= write_file(out / target / name, wire);
  for (bool compress : {false, true}) {
    const fs::path path = out / "container" / (name + (compress ? ".zstd.rtrace" : ".rtrace"));
    ok &= static_cast<bool>(save_trace(trace, path.string(), {.compress = compress, .ops_per_chunk = 64}));
  }
  std::string text, json;
  google::protobuf::TextFormat::PrintToString(trace, &text);
  ok &= google::protobuf::util::MessageToJsonString(trace, &json).ok();
  ok &= write_file(out / "text" / (name + ".pbtxt"), text);
  ok &= write_file(out / "json" / (name + ".json"), json);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: fuzz_make_seeds OUT_DIR SAMPLES_DIR REGRESSIONS_DIR\n";
    return 2;
  }
  const fs::path out = argv[1];
  for (const char* target : {"check", "sim", "replay", "why", "container", "text", "json"})
    fs::create_directories(out / target);
  size_t seeds = 0;
  for (const auto& entry : fs::directory_iterator(argv[2])) {
    if (entry.path().extension() != ".pbtxt") continue;
    auto trace = load_trace(entry.path().string());
    if (!trace || !add_seeds(out, entry.path().stem().string(), *trace)) {
      std::cerr << entry.path().string() << ": "
                << (trace ? "cannot write its seeds" : trace.error().describe()) << "\n";
      return 1;
    }
    ++seeds;
  }
  struct Shape {
    const char* name;
    uint64_t ops;
    bool known_modes;
    Schedule schedule;
  };
  for (const Shape& s : {Shape{"synth_small_known", 50, true, Schedule::k1F1B},
                         Shape{"synth_small_raw", 50, false, Schedule::kSequential},
                         Shape{"synth_medium_known", 800, true, Schedule::k1F1B}}) {
    SynthOptions o;
    o.target_ops = s.ops;
    o.layers = 1;
    o.microbatches = s.ops > 100 ? 2 : 1;
    o.known_modes = s.known_modes;
    o.schedule = s.schedule;
    o.activation_bytes = 1 << 20;
    o.inject.fill(1);
    const fs::path staging = out / (std::string(s.name) + ".staging.rtrace");
    auto writer = TraceWriter::create(staging.string(), o.writer);
    if (!writer || !synthesize(o, *writer) || !writer->close()) {
      std::cerr << "cannot synthesize " << s.name << "\n";
      return 1;
    }
    auto trace = load_trace(staging.string());
    fs::remove(staging);
    if (!trace || !add_seeds(out, s.name, *trace)) {
      std::cerr << s.name << ": cannot write its seeds\n";
      return 1;
    }
    ++seeds;
  }
  for (const auto& entry : fs::directory_iterator(fs::path(argv[3]) / "chunks")) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".chunk.pbtxt")) continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    v1::Chunk chunk;
    if (!google::protobuf::TextFormat::ParseFromString(text, &chunk)) {
      std::cerr << entry.path().string() << ": not a Chunk in text format\n";
      return 1;
    }
    for (const char* target : kChunkTargets)
      if (!write_file(out / target / name.substr(0, name.size() - 12), chunk.SerializeAsString())) return 1;
  }
  std::cout << "wrote " << seeds << " seeds per target under " << out.string() << "\n";
  return 0;
}
