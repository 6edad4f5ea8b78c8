// A stand-in for a CUDA program run under `racetrack capture`, for the shim
// test. It loads the real libracetrack_capture.so and calls
// InitializeInjection as the driver does in cuInit, then makes its "CUDA
// calls" by raising, through the fake libcupti, the callbacks CUPTI raises
// for them (a runtime call with the driver call nested in it, NVTX marks),
// and queues the activity records the GPU would produce. It links nothing of
// racetrack. argv[1] names the scenario (see main); shim_test.cpp runs each
// with the capture environment and reads the trace.
#include <cupti.h>
// cupti.h leaves the NVTX parameter structs out.
#include <dlfcn.h>
#include <generated_nvtx_meta.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cupti_records.h"
#include "fakes.h"

#ifndef RACETRACK_CAPTURE_LIBRARY
#error "RACETRACK_CAPTURE_LIBRARY must name libracetrack_capture.so"
#endif

namespace {

using namespace racetrack::capture::shim_fakes;
namespace records = racetrack::capture::cupti_records;

constexpr const char* kHolder = "Nsight Systems";
constexpr const char* kAxpyName = "_Z4axpyPfPKfif";
constexpr const char* kFillName = "_Z4fillPfi";

pid_t g_main_pid = 0;
std::atomic<uint32_t> g_next_correlation{1};
int g_settle_ms = 60;  // long enough for the collector to run a cycle (3 flush periods)

int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void sleep_ms(int ms) {
  timespec ts{ms / 1000, static_cast<long>(ms % 1000) * 1'000'000};
  nanosleep(&ts, nullptr);
}

template <class Handle>
Handle as(uint64_t value) {
  return reinterpret_cast<Handle>(value);
}

// Device work starts a while after the call that queued it.
int64_t device_start() {
  return now_ns() + 100'000'000;
}

// When an op's activity record reaches CUPTI's buffers, relative to its call.
enum class Arrival {
  kBefore,  // queued and flushed to the collector before the call is made
  kAfter,   // queued right after the call
  kHeld,    // kept until release_held(), after later calls
};

// The CUDA API of one application thread, as CUPTI sees it.
class FakeCuda {
 public:
  void create_stream(FakeStream s, unsigned flags, Arrival when) {
    fake_cupti_set_stream_id(s.handle, s.id);
    const uint32_t correlation = next_correlation();
    CUpti_ActivityStream r =
        records::stream(kContextId, s.id,
                        (flags & cudaStreamNonBlocking) != 0 ? CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING
                                                             : CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT,
                        0);
    r.correlationId = correlation;
    cudaStream_t created = nullptr;
    cudaStreamCreateWithFlags_v5000_params params{&created, flags};
    with_record(r, when, [&] {
      runtime_call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000, "cudaStreamCreateWithFlags",
                   &params, correlation, [&] { created = as<cudaStream_t>(s.handle); });
    });
  }

  // cudaMalloc, with the cuMemAlloc_v2 the runtime makes inside it.
  void malloc_device(uint64_t address, uint64_t bytes, Arrival when) {
    const uint32_t correlation = next_correlation();
    CUpti_ActivityMemory4 r =
        records::memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                        address, bytes, correlation, CUPTI_INVALID_STREAM_ID);
    r.contextId = kContextId;
    r.timestamp = now_ns();
    void* allocated = nullptr;
    cudaMalloc_v3020_params params{&allocated, bytes};
    with_record(r, when, [&] {
      runtime_call(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc", &params, correlation, [&] {
        CUdeviceptr device_pointer = 0;
        cuMemAlloc_v2_params driver_params{&device_pointer, bytes};
        driver_call(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", &driver_params, correlation,
                    [&] { device_pointer = address; });
        allocated = as<void*>(address);
      });
    });
  }

  void malloc_host(uint64_t address, uint64_t bytes, Arrival when) {
    const uint32_t correlation = next_correlation();
    CUpti_ActivityMemory4 r =
        records::memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
                        address, bytes, correlation, CUPTI_INVALID_STREAM_ID);
    r.contextId = kContextId;
    r.timestamp = now_ns();
    void* allocated = nullptr;
    cudaMallocHost_v3020_params params{&allocated, bytes};
    with_record(r, when, [&] {
      runtime_call(CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020, "cudaMallocHost", &params, correlation,
                   [&] { allocated = as<void*>(address); });
    });
  }

  // axpy<<<4, 256, 0, s>>>(x, y, n, a): cudaLaunchKernel with a CUkernel,
  // and the cuLaunchKernel inside it that carries the arguments.
  void launch_axpy(FakeStream s, uint64_t x, uint64_t y, int n, float a, Arrival when) {
    const uint32_t correlation = next_correlation();
    const CUpti_ActivityKernel10 r = kernel_record(correlation, s, kAxpyName);
    float* x_arg = as<float*>(x);
    const float* y_arg = as<const float*>(y);
    void* args[] = {&x_arg, &y_arg, &n, &a};
    cudaLaunchKernel_v7000_params params{};
    params.func = as<const void*>(kAxpyKernel);
    params.gridDim = dim3(4, 1, 1);
    params.blockDim = dim3(256, 1, 1);
    params.args = args;
    params.stream = as<cudaStream_t>(s.handle);
    with_record(r, when, [&] {
      runtime_call(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel", &params, correlation,
                   [&] { driver_launch(kAxpyKernel, s, args, correlation); });
    });
  }

  // fill(p, n) launched by a library through the driver alone (a CUfunction).
  void launch_fill(FakeStream s, uint64_t p, int n, Arrival when) {
    const uint32_t correlation = next_correlation();
    const CUpti_ActivityKernel10 r = kernel_record(correlation, s, kFillName);
    float* p_arg = as<float*>(p);
    void* args[] = {&p_arg, &n};
    with_record(r, when, [&] { driver_launch(kFillFunction, s, args, correlation); });
  }

  void event_record(uint64_t event, FakeStream s, uint32_t event_id, uint64_t sync_id, Arrival when) {
    const uint32_t correlation = next_correlation();
    CUpti_ActivityCudaEvent2 r = records::cuda_event(correlation, event_id, sync_id, s.id);
    r.contextId = kContextId;
    r.deviceTimestamp = static_cast<uint64_t>(device_start());
    cudaEventRecord_v3020_params params{as<cudaEvent_t>(event), as<cudaStream_t>(s.handle)};
    with_record(r, when, [&] {
      runtime_call(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, "cudaEventRecord", &params, correlation);
    });
  }

  void stream_wait(FakeStream s, uint64_t event, uint32_t event_id, uint64_t sync_id, Arrival when) {
    const uint32_t correlation = next_correlation();
    CUpti_ActivitySynchronization2 r = records::sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT,
                                                     correlation, event_id, sync_id, 0, s.id);
    r.contextId = kContextId;
    r.start = static_cast<uint64_t>(now_ns());
    r.end = r.start + 1000;
    cudaStreamWaitEvent_v3020_params params{as<cudaStream_t>(s.handle), as<cudaEvent_t>(event), 0};
    with_record(r, when, [&] {
      runtime_call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, "cudaStreamWaitEvent", &params,
                   correlation);
    });
  }

  // cudaMemcpyAsync device to pinned host, with its nested driver copy.
  void memcpy_d2h_async(uint64_t dst, uint64_t src, uint64_t bytes, FakeStream s, Arrival when) {
    const uint32_t correlation = next_correlation();
    CUpti_ActivityMemcpy6 r =
        records::memcpy(correlation, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
                        CUPTI_ACTIVITY_MEMORY_KIND_PINNED, bytes, true);
    r.contextId = kContextId;
    r.streamId = s.id;
    r.start = static_cast<uint64_t>(device_start());
    r.end = r.start + 4000;
    cudaMemcpyAsync_v3020_params params{as<void*>(dst), as<const void*>(src), bytes, cudaMemcpyDeviceToHost,
                                        as<cudaStream_t>(s.handle)};
    with_record(r, when, [&] {
      runtime_call(
          CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync", &params, correlation, [&] {
            cuMemcpyDtoHAsync_v2_params driver_params{as<void*>(dst), src, bytes, as<CUstream>(s.handle)};
            driver_call(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync_v2", &driver_params,
                        correlation);
          });
    });
  }

  void stream_sync(FakeStream s, Arrival when) {
    const uint32_t correlation = next_correlation();
    CUpti_ActivitySynchronization2 r =
        records::sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, correlation,
                      CUPTI_SYNCHRONIZATION_INVALID_VALUE, 0, 0, s.id);
    r.contextId = kContextId;
    r.start = static_cast<uint64_t>(now_ns());
    r.end = r.start + 1000;
    cudaStreamSynchronize_v3020_params params{as<cudaStream_t>(s.handle)};
    with_record(r, when, [&] {
      runtime_call(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize", &params,
                   correlation);
    });
  }

  void nvtx_mark(const char* text) {
    nvtxMarkA_params params{text};
    nvtx(CUPTI_CBID_NVTX_nvtxMarkA, "nvtxMarkA", &params);
  }
  void nvtx_push(const char* text) {
    nvtxRangePushA_params params{text};
    nvtx(CUPTI_CBID_NVTX_nvtxRangePushA, "nvtxRangePushA", &params);
  }
  void nvtx_pop() {
    nvtxRangePop_params params{nullptr};
    nvtx(CUPTI_CBID_NVTX_nvtxRangePop, "nvtxRangePop", &params);
  }

  // The records held back so far reach CUPTI's buffers now.
  void release_held() {
    for (const std::vector<uint64_t>& r : held_) fake_cupti_add_record(r.data(), r.size() * sizeof(uint64_t));
    held_.clear();
  }

 private:
  static uint32_t next_correlation() { return g_next_correlation.fetch_add(1); }

  template <class Record, class Call>
  void with_record(const Record& record, Arrival when, Call&& call) {
    static_assert(sizeof(Record) % sizeof(uint64_t) == 0);
    if (when == Arrival::kBefore) {
      fake_cupti_add_record(&record, sizeof record);
      sleep_ms(g_settle_ms);
    }
    call();
    if (when == Arrival::kAfter) fake_cupti_add_record(&record, sizeof record);
    if (when == Arrival::kHeld) {
      std::vector<uint64_t> words(sizeof record / sizeof(uint64_t));
      std::memcpy(words.data(), &record, sizeof record);
      held_.push_back(std::move(words));
    }
  }

  static CUpti_ActivityKernel10 kernel_record(uint32_t correlation, FakeStream s, const char* name) {
    const int64_t start = device_start();
    CUpti_ActivityKernel10 r = records::kernel(correlation, s.id, static_cast<uint64_t>(start),
                                               static_cast<uint64_t>(start + 20'000), name);
    r.contextId = kContextId;
    r.gridX = 4;
    r.gridY = r.gridZ = 1;
    r.blockX = 256;
    r.blockY = r.blockZ = 1;
    return r;
  }

  // One API call as CUPTI reports it: ENTER, what the call does (nested
  // driver calls, filling its out-parameters), EXIT with its result. A
  // thread's first call has no context at ENTER (docs/cupti-notes.md §2.4).
  template <class Result, class Body>
  void api_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char* name, const void* params,
                uint32_t correlation, Body&& body) {
    uint64_t correlation_data = 0;
    Result result{};  // success
    CUpti_CallbackData data{};
    data.callbackSite = CUPTI_API_ENTER;
    data.functionName = name;
    data.functionParams = params;
    data.context = first_call_ ? nullptr : kContext;
    data.correlationId = correlation;
    data.correlationData = &correlation_data;
    first_call_ = false;
    fake_cupti_callback(domain, cbid, &data);
    body();
    data.callbackSite = CUPTI_API_EXIT;
    data.context = kContext;
    data.functionReturnValue = &result;
    fake_cupti_callback(domain, cbid, &data);
  }

  template <class Body = void (*)()>
  void runtime_call(
      CUpti_CallbackId cbid, const char* name, const void* params, uint32_t correlation,
      Body&& body = [] {}) {
    api_call<cudaError_t>(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, name, params, correlation, body);
  }
  template <class Body = void (*)()>
  void driver_call(
      CUpti_CallbackId cbid, const char* name, const void* params, uint32_t correlation,
      Body&& body = [] {}) {
    api_call<CUresult>(CUPTI_CB_DOMAIN_DRIVER_API, cbid, name, params, correlation, body);
  }

  void driver_launch(uint64_t function, FakeStream s, void** args, uint32_t correlation) {
    cuLaunchKernel_params params{};
    params.f = as<CUfunction>(function);
    params.gridDimX = 4;
    params.gridDimY = params.gridDimZ = 1;
    params.blockDimX = 256;
    params.blockDimY = params.blockDimZ = 1;
    params.hStream = as<CUstream>(s.handle);
    params.kernelParams = args;
    driver_call(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", &params, correlation);
  }

  static void nvtx(CUpti_CallbackId cbid, const char* name, const void* params) {
    const CUpti_NvtxData data{name, params, nullptr};
    fake_cupti_callback(CUPTI_CB_DOMAIN_NVTX, cbid, &data);
  }

  bool first_call_ = true;
  std::vector<std::vector<uint64_t>> held_;
};

std::string access(const char* mode, uint64_t address, uint64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%s:0x%llx:%llu", mode, static_cast<unsigned long long>(address),
                static_cast<unsigned long long>(bytes));
  return text;
}

// --- scenarios -------------------------------------------------------------

// The pattern racetrack exists for: a kernel writes an activation on the
// compute stream; the offload stream waits for it (unless `wait` is false:
// the race) and copies it to pinned memory; the host reads the copy after
// synchronising the offload stream. Records arrive before their calls, right
// after them, and (the copy's) only at the end.
int offload(bool wait) {
  FakeCuda cuda;
  cuda.create_stream(kCompute, cudaStreamNonBlocking, Arrival::kAfter);
  cuda.create_stream(kOffload, cudaStreamNonBlocking, Arrival::kAfter);
  cuda.malloc_device(kActivation, kBufferBytes, Arrival::kBefore);
  cuda.malloc_device(kWeights, kBufferBytes, Arrival::kAfter);
  cuda.malloc_host(kPinned, kBufferBytes, Arrival::kAfter);
  cuda.nvtx_push("step");
  cuda.launch_fill(kCompute, kWeights, kFillN, Arrival::kAfter);
  const std::string annotation =
      "racetrack:kernel " + access("w", kActivation, kCopyBytes) + " " + access("r", kWeights, kCopyBytes);
  cuda.nvtx_mark(annotation.c_str());
  cuda.launch_axpy(kCompute, kActivation, kWeights, kAxpyN, kAxpyA, Arrival::kBefore);
  cuda.event_record(kEvent, kCompute, kEventId, kSyncId, Arrival::kAfter);
  if (wait) cuda.stream_wait(kOffload, kEvent, kEventId, kSyncId, Arrival::kAfter);
  cuda.memcpy_d2h_async(kPinned, kActivation, kCopyBytes, kOffload, Arrival::kHeld);
  cuda.stream_sync(kOffload, Arrival::kAfter);
  cuda.nvtx_mark(("racetrack:host " + access("r", kPinned, kCopyBytes)).c_str());
  cuda.nvtx_pop();
  cuda.release_held();
  return 0;
}

// kThreads threads, in two waves, each launching on its own stream; each
// launch's n says which thread and which launch it was.
int threads() {
  fake_cupti_set_dropped_records(kDropped);
  const auto work = [](int i) {
    FakeCuda cuda;
    const FakeStream s{kThreadStreamBase.handle + static_cast<uint64_t>(i),
                       kThreadStreamBase.id + static_cast<uint32_t>(i)};
    cuda.create_stream(s, cudaStreamNonBlocking, Arrival::kAfter);
    for (int k = 0; k < kLaunchesPerThread; ++k)
      cuda.launch_axpy(s, kActivation + static_cast<uint64_t>(i) * kCopyBytes, kWeights, i * 1000 + k, kAxpyA,
                       k % 2 == 0 ? Arrival::kAfter : Arrival::kHeld);
    cuda.release_held();
  };
  for (int wave = 0; wave < 2; ++wave) {
    std::vector<std::thread> wave_threads;
    for (int j = 0; j < kThreads / 2; ++j) wave_threads.emplace_back(work, wave * (kThreads / 2) + j);
    for (std::thread& t : wave_threads) t.join();
  }
  return 0;
}

// Work, then SIGTERM with its default action while the collector is in the
// middle of a periodic cycle.
int sigterm() {
  FakeCuda cuda;
  cuda.create_stream(kCompute, cudaStreamNonBlocking, Arrival::kAfter);
  cuda.malloc_device(kActivation, kBufferBytes, Arrival::kAfter);
  cuda.launch_axpy(kCompute, kActivation, kWeights, 1, kAxpyA, Arrival::kAfter);
  cuda.launch_axpy(kCompute, kActivation, kWeights, 2, kAxpyA, Arrival::kAfter);
  cuda.event_record(kEvent, kCompute, kEventId, kSyncId, Arrival::kAfter);
  fake_cupti_set_dropped_records(kDropped);  // noted in the trace by the final cycle only
  fake_cupti_set_flush_delay_ms(150);
  fake_cupti_wait_for_slow_flush();
  std::raise(SIGTERM);
  return 3;  // not reached
}

// A child forked early (before the collector's first cycle) makes CUDA calls
// and leaves with exit(); the parent carries on.
int fork_child() {
  FakeCuda cuda;
  cuda.create_stream(kCompute, cudaStreamNonBlocking, Arrival::kAfter);
  cuda.malloc_device(kActivation, kBufferBytes, Arrival::kAfter);
  cuda.launch_axpy(kCompute, kActivation, kWeights, 1, kAxpyA, Arrival::kAfter);
  std::fflush(
      stdout);  // only the program's own output: fflush(nullptr) would hide a capturer's buffered bytes
  // Let the collector thread reach its sleep first: AddressSanitizer's
  // allocator is not fork-safe while another thread allocates (the child
  // then hangs in the leak check at exit).
  sleep_ms(50);
  const pid_t child = fork();
  if (child < 0) return 4;
  if (child == 0) {
    FakeCuda child_cuda;
    child_cuda.nvtx_mark("child");
    child_cuda.launch_axpy(kCompute, kActivation, kWeights, 2, kAxpyA, Arrival::kAfter);
    std::exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  std::printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  cuda.nvtx_mark("parent");
  cuda.launch_axpy(kCompute, kActivation, kWeights, 3, kAxpyA, Arrival::kAfter);
  return 0;
}

// A thread that made CUDA calls and ends only during exit, after the
// capture library's static destructors ran: an exit handler registered
// before the injection (so run after them) lets it go and joins it.
std::thread* g_late_thread = nullptr;
std::atomic<bool> g_late_thread_called{false}, g_late_thread_released{false};

void join_late_thread() {
  g_late_thread_released.store(true);
  g_late_thread->join();
}

int late_thread() {
  FakeCuda cuda;
  cuda.create_stream(kCompute, cudaStreamNonBlocking, Arrival::kAfter);
  cuda.launch_axpy(kCompute, kActivation, kWeights, 1, kAxpyA, Arrival::kAfter);
  g_late_thread = new std::thread([] {
    FakeCuda thread_cuda;
    thread_cuda.launch_axpy(kCompute, kActivation, kWeights, 2, kAxpyA, Arrival::kAfter);
    g_late_thread_called.store(true);
    while (!g_late_thread_released.load()) sleep_ms(1);
  });
  while (!g_late_thread_called.load()) sleep_ms(1);
  return 0;
}

// What the fakes saw, printed at exit after the capture library's own exit
// handler (registered later, so run earlier).
void report_fakes() {
  if (getpid() != g_main_pid) return;
  const FakeCuptiStats c = fake_cupti_stats();
  const FakeCudaStats d = fake_cuda_stats();
  std::printf(
      "fakes: subscribe_calls=%u subscribed=%u callbacks_enabled=%u activity_kinds=%u delivered=%u "
      "flushes=%u "
      "forced_flushes=%u buffers=%u queued=%u handed_over=%u walked=%u nvtx_initialised=%u "
      "func_param_queries=%u kernel_param_queries=%u\n",
      c.subscribe_calls, c.subscribed, c.callbacks_enabled, c.activity_kinds_enabled, c.callbacks_delivered,
      c.flushes, c.forced_flushes, c.buffers_completed, c.records_queued, c.records_delivered,
      c.records_walked, c.nvtx_initialised, d.func_param_queries, d.kernel_param_queries);
  std::fflush(stdout);
}

// What the driver does in cuInit when CUDA_INJECTION64_PATH names the
// library, and NVTX when NVTX_INJECTION64_PATH does.
bool inject() {
  void* library = dlopen(RACETRACK_CAPTURE_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "shim program: %s\n", dlerror());
    return false;
  }
  using Initialize = int (*)();
  using InitializeNvtx = int (*)(const void*);
  auto initialize = reinterpret_cast<Initialize>(dlsym(library, "InitializeInjection"));
  auto initialize_nvtx = reinterpret_cast<InitializeNvtx>(dlsym(library, "InitializeInjectionNvtx2"));
  if (initialize == nullptr || initialize_nvtx == nullptr) {
    std::fprintf(stderr, "shim program: the library lacks the injection entry points\n");
    return false;
  }
  std::printf("InitializeInjection=%d\n", initialize());
  static const char export_table = 0;  // NVTX's; only passed along
  std::printf("InitializeInjectionNvtx2=%d\n", initialize_nvtx(&export_table));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string scenario = argc == 2 ? argv[1] : "";
  if (scenario != "offload" && scenario != "offload-nowait" && scenario != "threads" &&
      scenario != "sigterm" && scenario != "fork" && scenario != "late-thread" && scenario != "busy" &&
      scenario != "activity") {
    std::fprintf(stderr, "usage: %s offload|offload-nowait|threads|sigterm|fork|late-thread|busy|activity\n",
                 argv[0]);
    return 2;
  }
  g_main_pid = getpid();
  if (const char* flush_ms = std::getenv("RACETRACK_CAPTURE_FLUSH_MS")) g_settle_ms = 3 * std::atoi(flush_ms);
  std::atexit(report_fakes);
  if (scenario == "late-thread") std::atexit(join_late_thread);
  if (scenario == "busy") fake_cupti_set_busy(kHolder);
  if (!inject()) return 2;
  if (scenario == "threads") return threads();
  if (scenario == "sigterm") return sigterm();
  if (scenario == "fork") return fork_child();
  if (scenario == "late-thread") return late_thread();
  return offload(scenario != "offload-nowait");  // also busy and activity
}
