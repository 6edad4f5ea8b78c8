// What capturing costs on the CPU, without a GPU:
// 1. the launch path: the work racetrack's callback adds to one kernel launch
//    (decode at ENTER and EXIT, append to the thread log, a collector
//    draining meanwhile), against a naive callback body (a mutex, a map
//    entry with the kernel name and an argument vector per launch: the kind
//    of body docs/cupti-notes.md §7.1 measured at +2.3 µs per launch on the H200's
//    host), and as a share of the budget the
//    1.15x-of-CUPTI target leaves (docs/cupti-notes.md §7.1: 6.95 µs per launch with
//    activity tracing alone on an H200);
// 2. the trace assembler: events + records in, trace file out, against
//    reading the written trace back.
#include <atomic>
#include <map>
#include <mutex>
#include <cstring>
#include <thread>

#include "bench_support.h"
#include "callback_decoder.h"
#include "thread_log.h"
#include "trace_assembler.h"

namespace racetrack::bench {
namespace {

using namespace racetrack::capture;

// Answers like the shim's caches do after the first launch of a kernel.
class CachedQueries final : public DriverQueries {
 public:
  CachedQueries() { layout_.params = {{0, 8}, {8, 8}, {16, 4}, {20, 4}}; }
  const ParamLayout* param_layout(uint64_t) override { return &layout_; }
  uint32_t stream_id(CUcontext, uint64_t, bool) override { return 13; }
  uint32_t context_id(CUcontext) override { return 1; }
  uint64_t graph_exec_id(uint64_t) override { return 0; }
  uint64_t graph_node_id(uint64_t) override { return 0; }

 private:
  ParamLayout layout_;
};

struct LaunchPathResult {
  double traced_ns = 0, naive_ns = 0;
};

struct NaiveRecord {
  std::string name;
  std::vector<uint64_t> args;
};

LaunchPathResult measure_launch_path(uint64_t launches) {
  float* x = reinterpret_cast<float*>(0x7f0000001000);
  float* y = reinterpret_cast<float*>(0x7f0000002000);
  int n = 1 << 20;
  float a = 3.0f;
  void* args[] = {&x, &y, &n, &a};
  cuLaunchKernel_params params{};
  params.f = reinterpret_cast<CUfunction>(0xF00);
  params.gridDimX = 4096;
  params.blockDimX = 256;
  params.hStream = reinterpret_cast<CUstream>(0x5000);
  params.kernelParams = args;
  CUpti_CallbackData data{};
  data.functionParams = &params;
  CUresult ok = CUDA_SUCCESS;
  data.functionReturnValue = &ok;

  CachedQueries queries;
  ThreadLog log;
  std::vector<uint64_t> scratch(ThreadLog::kMaxPayloadWords);
  std::atomic<bool> done{false};
  std::atomic<uint64_t> drained{0};
  std::thread collector([&] {
    auto count = [&](const ApiEvent&, std::span<const uint64_t>) {};
    while (!done.load()) drained += log.drain(count);
    drained += log.drain(count);
  });
  LaunchPathResult r;
  r.traced_ns = best_seconds(3, [&] {
                  for (uint64_t i = 0; i < launches; ++i) {
                    ApiEvent event;
                    Payload payload{scratch.data(), ThreadLog::kMaxPayloadWords, 0};
                    data.callbackSite = CUPTI_API_ENTER;
                    data.correlationId = static_cast<uint32_t>(i);
                    decode_api_enter(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, data,
                                     queries, event, payload);
                    data.callbackSite = CUPTI_API_EXIT;
                    decode_api_exit(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, data,
                                    queries, event);
                    log.append(event, std::span<const uint64_t>(scratch.data(), payload.used));
                  }
                }) * 1e9 / static_cast<double>(launches);
  done.store(true);
  collector.join();
  if (drained.load() != 3 * launches) {
    std::fprintf(stderr, "the collector drained %llu of %llu events\n",
                 static_cast<unsigned long long>(drained.load()), static_cast<unsigned long long>(3 * launches));
    std::exit(1);
  }
  // Baseline: the naive body, kept bounded the way a flusher would.
  std::mutex mutex;
  std::map<uint64_t, NaiveRecord> naive;
  r.naive_ns = best_seconds(3, [&] {
                 for (uint64_t i = 0; i < launches; ++i) {
                   std::lock_guard lock(mutex);
                   NaiveRecord& rec = naive[i];
                   rec.name = "void elementwise_kernel<float>(int, float*, const float*)";
                   for (void* arg : args) {
                     uint64_t word = 0;
                     std::memcpy(&word, arg, 4);
                     rec.args.push_back(word);
                   }
                   if (naive.size() == 4096) naive.clear();
                 }
               }) * 1e9 / static_cast<double>(launches);
  return r;
}

// A launch-bound step: kernels on a compute stream, offload copies with
// events, every call with its device record.
double measure_assembler(uint64_t kernels, uint64_t& ops_written, std::string& path) {
  path = (bench_dir() / "capture_bench.rtrace").string();
  double seconds = best_seconds(2, [&] {
    auto writer = TraceWriter::create(path, WriterOptions{});
    if (!writer) fail(writer.error());
    AssemblerOptions options;
    options.header.set_producer("bench");
    TraceAssembler assembler(*writer, options);
    uint64_t seq = 1, correlation = 1;
    int64_t t = 1'700'000'000'000'000'000;
    const uint64_t words[3] = {0x7f0000001000, 0x7f0000002000, 0x4040000000100000};
    for (uint64_t i = 0; i < kernels; ++i) {
      ApiEvent e;
      e.seq = seq++;
      e.correlation = correlation++;
      e.os_tid = 1;
      e.host_start = t;
      e.host_end = t + 2000;
      e.context_id = 1;
      e.stream = 0x5000;
      e.stream_id = 13;
      e.domain = ApiDomain::kDriver;
      const bool copy = i % 8 == 7;
      e.kind = copy ? ApiKind::kMemcpy : ApiKind::kLaunch;
      if (copy) {
        e.dst = 0x90000;
        e.src = 0x7f0000001000;
        e.bytes = 4096;
        e.value = 2;
        e.flags = kFlagAsync;
        CopyRecord r;
        r.correlation = static_cast<uint32_t>(e.correlation);
        r.context_id = 1;
        r.stream_id = 13;
        r.start = t + 5000;
        r.end = t + 9000;
        r.copy_kind = 2;
        assembler.add_api(e, {});
        assembler.add_record(r);
      } else {
        e.handle = 0xF00;
        e.grid[0] = 64;
        e.block[0] = 256;
        KernelRecord r;
        r.correlation = static_cast<uint32_t>(e.correlation);
        r.context_id = 1;
        r.stream_id = 13;
        r.start = t + 5000;
        r.end = t + 8000;
        r.name = "elementwise_kernel";
        assembler.add_api(e, words);
        assembler.add_record(r);
      }
      t += 3000;
      if (i % 4096 == 4095)
        if (auto s = assembler.advance(seq, t); !s) fail(s.error());
    }
    if (auto s = assembler.finish(); !s) fail(s.error());
    ops_written = assembler.stats().ops_written;
    if (auto s = writer->close(); !s) fail(s.error());
  });
  return seconds;
}

}  // namespace
}  // namespace racetrack::bench

int main(int argc, char** argv) {
  using namespace racetrack::bench;
  const bool large = argc > 1 && std::string(argv[1]) == "--large";
  const uint64_t launches = large ? 10'000'000 : 1'000'000;

  const LaunchPathResult path = measure_launch_path(launches);
  const double budget_ns = 0.15 * 6950.0;  // docs/cupti-notes.md §7.1, activity-only µs/launch on an H200
  std::printf("launch path (%llu launches, collector draining):\n", static_cast<unsigned long long>(launches));
  std::printf("  racetrack callback work  %7.1f ns/launch\n", path.traced_ns);
  std::printf("  naive callback body      %7.1f ns/launch  (racetrack costs %.2fx of it)\n", path.naive_ns,
              path.traced_ns / path.naive_ns);
  std::printf("  share of the 1.15x budget (%.0f ns/launch): %.2f\n", budget_ns, path.traced_ns / budget_ns);

  uint64_t ops = 0;
  std::string trace;
  const double assemble_s = measure_assembler(launches, ops, trace);
  const double read_s = best_seconds(2, [&] { decode_all(trace); });
  std::printf("assembler (%llu ops with records):\n", static_cast<unsigned long long>(ops));
  std::printf("  assemble + write  %6.2f Mops/s\n", static_cast<double>(ops) / assemble_s / 1e6);
  std::printf("  read back         %6.2f Mops/s  (assembling costs %.1fx reading)\n",
              static_cast<double>(ops) / read_s / 1e6, assemble_s / read_s);
  std::printf("  peak memory       %6.1f MiB\n", static_cast<double>(peak_rss_bytes()) / (1 << 20));
  return 0;
}
