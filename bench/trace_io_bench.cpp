// Trace I/O figures: synth write throughput, read+decode throughput and bytes
// per op for synth traces of 10^5, 10^6 (and with --large 10^7) ops,
// compressed and not, plus a builder-made trace. The baseline for decoding is
// reading the same file and decompressing its chunks without parsing them,
// measured in the same run; the target is 3 million ops/s on one core and at
// most 48 bytes per op compressed.
#include <zstd.h>

#include <cstdio>
#include <vector>

#include "bench_support.h"
#include "racetrack/traces/builder.h"
#include "racetrack/traces/synth.h"
#include "racetrack/traces/trace_io.h"

namespace rt = racetrack;
using racetrack::bench::best_seconds;
using racetrack::bench::decode_all;

namespace {

constexpr double kTargetOpsPerSecond = 3e6;
constexpr double kTargetBytesPerOp = 48;


// Reads frames and decompresses them, without protobuf parsing.
uint64_t read_frames_only(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  std::fseek(f, rt::kFileHeaderSize, SEEK_SET);
  std::vector<char> stored, raw;
  uint64_t bytes = 0;
  unsigned char frame[rt::kFrameHeaderSize];
  while (std::fread(frame, 1, sizeof frame, f) == sizeof frame) {
    const uint32_t stored_size = frame[0] | frame[1] << 8 | frame[2] << 16 | uint32_t(frame[3]) << 24;
    const uint32_t raw_size = frame[4] | frame[5] << 8 | frame[6] << 16 | uint32_t(frame[7]) << 24;
    stored.resize(stored_size);
    if (std::fread(stored.data(), 1, stored_size, f) != stored_size) break;
    (void)rt::crc32(stored.data(), stored_size);
    if (frame[8] == 1) {
      raw.resize(raw_size);
      ZSTD_decompress(raw.data(), raw.size(), stored.data(), stored_size);
    }
    bytes += raw_size;
  }
  std::fclose(f);
  return bytes;
}

void report_decode(const char* what, const std::string& path, uint64_t ops) {
  const double decode = best_seconds(3, [&] { decode_all(path); });
  const double baseline = best_seconds(3, [&] { read_frames_only(path); });
  const double size = static_cast<double>(std::filesystem::file_size(path));
  const double ops_per_s = static_cast<double>(ops) / decode;
  std::printf("%-34s %10llu ops  %8.1f B/op (%.2fx target)  decode %6.2f Mops/s (%.2fx target, %.2fx frame-read baseline)\n",
              what, static_cast<unsigned long long>(ops), size / static_cast<double>(ops),
              size / static_cast<double>(ops) / kTargetBytesPerOp, ops_per_s / 1e6,
              ops_per_s / kTargetOpsPerSecond, decode / baseline);
}

}  // namespace

int main(int argc, char** argv) {
  const auto dir = racetrack::bench::bench_dir();
  std::printf("trace I/O benchmark (one core; best of 3; files in %s)\n\n", dir.c_str());
  for (uint64_t n : racetrack::bench::bench_sizes(argc, argv)) {
    for (bool compress : {true, false}) {
      const std::string path = (dir / ("synth-" + std::to_string(n) + (compress ? ".z" : "") + ".rtrace")).string();
      rt::SynthOptions options;
      options.target_ops = n;
      options.writer.compress = compress;
      uint64_t ops = 0;
      const double write = best_seconds(1, [&] {
        auto writer = rt::TraceWriter::create(path, options.writer);
        auto result = rt::synthesize(options, *writer);
        (void)writer->close();
        ops = result->ops;
      });
      std::printf("synth write %-22s %10llu ops  %6.2f Mops/s\n", compress ? "(zstd)" : "(uncompressed)",
                  static_cast<unsigned long long>(ops), static_cast<double>(ops) / write / 1e6);
      report_decode(compress ? "  read+decode synth (zstd)" : "  read+decode synth (uncompressed)", path, ops);
    }
    std::printf("  peak RSS so far: %.1f MiB\n\n", static_cast<double>(racetrack::bench::peak_rss_bytes()) / (1 << 20));
  }

  // A builder-made trace: many small kernels and copies, as tests write them.
  const std::string path = (dir / "builder.rtrace").string();
  const uint64_t n = 1000000;
  const double write = best_seconds(1, [&] {
    auto writer = rt::TraceWriter::create(path);
    rt::TraceBuilder b(*writer);
    auto compute = b.stream("compute", rt::v1::ROLE_COMPUTE);
    auto d2h = b.stream("offload", rt::v1::ROLE_D2H);
    auto x = b.device_buffer("x", 1 << 20);
    auto p = b.pinned_buffer("p", 1 << 20);
    auto e = b.event("e");
    while (b.op_count() < n) {
      b.kernel(compute, "k", {x}, {x});
      b.record(e, compute);
      b.wait(d2h, e);
      b.memcpy(d2h, p, x);
    }
    (void)b.finish();
    (void)writer->close();
  });
  std::printf("builder write (zstd)               %10llu ops  %6.2f Mops/s\n", static_cast<unsigned long long>(n),
              static_cast<double>(n) / write / 1e6);
  report_decode("  read+decode builder (zstd)", path, n);
  return 0;
}
