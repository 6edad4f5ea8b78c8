// What keeping the code costs a capture's trace. The cubins of the files
// given (a cubin, or every cubin a fatbin or shared library holds for
// --arch: what a process loads from it, each cubin one CUPTI module load)
// go through the capture's trace assembler under --launches kernel
// launches (default 100000, spread over the cubins, each loaded lazily at
// its first launch), four ways in the same run: no modules at all (the baseline), modules by hash
// only (--no-code), and with their images; then every cubin loaded twice
// (a second context), which dedupe must make free. Prints the trace sizes
// and their ratios, and the stored bytes per image byte (what the
// container's zstd chunks make of the images).
//
// usage: bench_capture_modules [--arch SM] [--launches N] FILE...
#include <fstream>
#include <iterator>
#include <sstream>

#include "bench_support.h"
#include "racetrack/code/fatbin.h"
#include "trace_assembler.h"

namespace racetrack::bench {
namespace {

using namespace racetrack::capture;

enum class Mode { kNoModules, kHashesOnly, kImages, kImagesTwice };

struct Run {
  uint64_t trace_bytes = 0;
  double seconds = 0;
  ModuleStats modules;
};

Run assemble(const std::vector<std::vector<uint8_t>>& cubins, uint64_t launches, Mode mode) {
  const std::string path = (bench_dir() / "module_size_bench.rtrace").string();
  Run run;
  run.seconds = best_seconds(1, [&] {
    auto writer = TraceWriter::create(path, WriterOptions{});
    if (!writer) fail(writer.error());
    AssemblerOptions options;
    options.header.set_producer("bench");
    options.modules.keep_images = mode != Mode::kHashesOnly;
    options.modules.max_image_bytes = uint64_t{1} << 40;
    TraceAssembler assembler(*writer, options);
    uint64_t seq = 1, correlation = 1, cupti_module = 1;
    int64_t t = 1'700'000'000'000'000'000;
    const uint64_t words[3] = {0x7f0000001000, 0x7f0000002000, 0x4040000000100000};
    const int loads = mode == Mode::kImagesTwice ? 2 : 1;
    for (uint64_t n = 0; n < launches; ++n) {
      const size_t i = n % cubins.size();
      ApiEvent launch;
      launch.seq = seq++;
      launch.correlation = correlation++;
      launch.os_tid = 1;
      launch.host_start = t;
      launch.host_end = t + 2000;
      launch.context_id = 1;
      launch.stream = 0x5000;
      launch.stream_id = 13;
      launch.domain = ApiDomain::kDriver;
      launch.kind = ApiKind::kLaunch;
      launch.handle = 0xF000 + i;
      launch.module = 0x30D000 + i;
      launch.payload_words = 3;
      for (int l = 0; mode != Mode::kNoModules && n < cubins.size() && l < loads; ++l) {
        ApiEvent load;
        load.seq = seq++;
        load.os_tid = 1;
        load.host_start = load.host_end = t + 1000;
        load.kind = ApiKind::kModuleLoaded;
        load.domain = ApiDomain::kResource;
        load.correlation = launch.correlation;  // loaded inside the launch (lazy loading)
        load.handle = cupti_module;
        assembler.add_api(load, {});
        assembler.add_module_image(cupti_module++, cubins[i], "");
      }
      assembler.add_api(launch, words);
      t += 5000;
    }
    if (auto s = assembler.finish(); !s) fail(s.error());
    run.modules = assembler.stats().modules;
    if (auto s = writer->close(); !s) fail(s.error());
  });
  run.trace_bytes = std::filesystem::file_size(path);
  return run;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(make_error(path + ": cannot read"));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace
}  // namespace racetrack::bench

int main(int argc, char** argv) {
  using namespace racetrack;
  using namespace racetrack::bench;
  std::optional<uint32_t> arch;
  uint64_t launches = 100000;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--arch" && i + 1 < argc) {
      arch = static_cast<uint32_t>(std::stoul(argv[++i]));
    } else if (a == "--launches" && i + 1 < argc) {
      launches = std::stoull(argv[++i]);
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: bench_capture_modules [--arch SM] FILE...  (cubins, fatbins, libraries)\n");
    return 2;
  }
  std::vector<std::vector<uint8_t>> cubins;
  uint64_t image_bytes = 0;
  for (const std::string& file : files) {
    const std::vector<uint8_t> bytes = read_file(file);
    auto set = code::find_cubins(bytes, arch);
    if (!set) fail(set.error());
    for (code::EmbeddedCubin& c : set->cubins) {
      image_bytes += c.image.size();
      cubins.push_back(std::move(c.image));
    }
  }
  if (cubins.empty()) fail(make_error("no cubins in the files given"));
  launches = std::max<uint64_t>(launches, cubins.size());
  std::printf("%zu cubins from %zu file(s), %.3f MiB of images; %llu launches\n", cubins.size(), files.size(),
              static_cast<double>(image_bytes) / (1 << 20), static_cast<unsigned long long>(launches));
  const Run none = assemble(cubins, launches, Mode::kNoModules);
  const Run hashes = assemble(cubins, launches, Mode::kHashesOnly);
  const Run images = assemble(cubins, launches, Mode::kImages);
  const Run twice = assemble(cubins, launches, Mode::kImagesTwice);
  const auto mib = [](uint64_t b) { return static_cast<double>(b) / (1 << 20); };
  std::printf("trace, no modules (baseline)  %10.3f MiB\n", mib(none.trace_bytes));
  std::printf("trace, --no-code (hashes)     %10.3f MiB  (%.2fx the baseline)\n", mib(hashes.trace_bytes),
              static_cast<double>(hashes.trace_bytes) / static_cast<double>(none.trace_bytes));
  std::printf("trace, with images            %10.3f MiB  (%.2fx the baseline, %.2fx --no-code)\n",
              mib(images.trace_bytes),
              static_cast<double>(images.trace_bytes) / static_cast<double>(none.trace_bytes),
              static_cast<double>(images.trace_bytes) / static_cast<double>(hashes.trace_bytes));
  std::printf(
      "stored bytes per image byte   %10.3f  (zstd-3 chunks)\n",
      static_cast<double>(images.trace_bytes - hashes.trace_bytes) / static_cast<double>(image_bytes));
  std::printf("every cubin loaded twice      %10.3f MiB  (%.3fx once; %llu duplicates)\n",
              mib(twice.trace_bytes),
              static_cast<double>(twice.trace_bytes) / static_cast<double>(images.trace_bytes),
              static_cast<unsigned long long>(twice.modules.duplicates));
  std::printf("--no-code cost per module     %10.1f bytes\n",
              (static_cast<double>(hashes.trace_bytes) - static_cast<double>(none.trace_bytes)) /
                  static_cast<double>(cubins.size()));
  std::printf("kernel ops naming a module    %llu of %llu\n",
              static_cast<unsigned long long>(images.modules.kernels_named),
              static_cast<unsigned long long>(launches));
  std::printf("assembling time, with images  %.2fx the baseline (%.3f s vs %.3f s)\n",
              images.seconds / none.seconds, images.seconds, none.seconds);
  return 0;
}
