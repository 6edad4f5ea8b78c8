// Export figures: bytes per op written (against the per-op estimate that
// `racetrack export` announces before writing, kPerfettoBytesPerOp and
// kChromeBytesPerOp) and time per op, for synth traces of 10^5, 10^6 (and
// with --large 10^7) ops, Perfetto and Chrome JSON, the whole trace and a
// 10^4-op window. The baseline is reading and decoding the same trace,
// measured in the same run: an export reads it twice and writes ~7x its
// decoded size.
#include <cstdio>
#include <fstream>

#include "bench_support.h"
#include "racetrack/traces/export.h"
#include "racetrack/traces/synth.h"

namespace rt = racetrack;
using racetrack::bench::best_seconds;
using racetrack::bench::decode_all;

namespace {

void report(const char* what, const std::string& in, rt::ExportFormat format,
            const rt::ExportOptions& options, double baseline) {
  const std::string out = (racetrack::bench::bench_dir() / "export.out").string();
  rt::ExportStats stats;
  const double took = best_seconds(3, [&] {
    auto result = rt::export_trace(in, out, format, options);
    if (!result) racetrack::bench::fail(result.error());
    stats = *result;
  });
  const double ops = static_cast<double>(stats.slices);
  const double per_op = static_cast<double>(stats.bytes) / ops;
  const double estimate =
      format == rt::ExportFormat::kChrome ? rt::kChromeBytesPerOp : rt::kPerfettoBytesPerOp;
  std::printf("%-22s %9llu ops  %6.1f B/op (%.2fx the estimate)  %6.2f us/op  %5.2fx read+decode\n", what,
              static_cast<unsigned long long>(stats.slices), per_op, per_op / estimate, took / ops * 1e6,
              took / baseline);
  std::filesystem::remove(out);
}

}  // namespace

int main(int argc, char** argv) {
  for (uint64_t size : racetrack::bench::bench_sizes(argc, argv)) {
    rt::SynthOptions options;
    options.target_ops = size;
    options.inject.fill(1);
    const std::string in = racetrack::bench::synth_trace("export-" + std::to_string(size), options);
    uint64_t ops = 0;
    const double decode = best_seconds(3, [&] { ops = decode_all(in); });
    std::printf("synth trace of %llu ops: read+decode %.3f s\n", static_cast<unsigned long long>(ops),
                decode);
    rt::ExportOptions whole;
    rt::ExportOptions window;
    window.from_seq = ops / 2;
    window.max_ops = 10000;
    report("  perfetto", in, rt::ExportFormat::kPerfetto, whole, decode);
    report("  chrome json", in, rt::ExportFormat::kChrome, whole, decode);
    report("  perfetto, window", in, rt::ExportFormat::kPerfetto, window, decode);
    std::filesystem::remove(in);
  }
  return 0;
}
