// The CUDA backend (cuda_backend.h, docs/replay.md). Device side: one
// kernel, run per op, that holds back (--stress), checks the op's reads
// against the expected stamps, spins to the traced duration on %globaltimer
// and stamps its writes. Host side: one thread per traced host thread issues
// its ops in order, waiting first for what other threads must have issued.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "cuda_backend.h"

namespace racetrack::replay {
namespace {

// ---- Device side

struct DeviceCheck {
  unsigned long long g0, g1;
  uint32_t space, expected;
};

struct DeviceWrite {
  unsigned long long g0, g1;
  uint32_t space, unused;
};

struct DeviceTables {
  const DeviceCheck* checks;
  const DeviceWrite* writes;
  uint32_t* const* stamps;  // version words by space key (host space: mapped pinned memory)
  GranuleMismatch* log;
  unsigned long long* log_count;
  unsigned long long log_capacity;
  long long* clocks;  // %globaltimer at each op's start and end
};

struct OpKernelArgs {
  uint32_t op;
  uint32_t checks, check_count, writes, write_count;
  long long hold_ns;  // --stress: held back before the op starts
  long long run_ns;   // spin until the op's start + run_ns before stamping
  bool starts, ends;  // this launch starts the op / ends it (a copy has one of each)
};

constexpr int kThreads = 256;

__device__ long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return static_cast<long long>(t);
}

__device__ void spin_until(long long t) {
  while (global_ns() < t) {
  }
}

__global__ void op_kernel(DeviceTables t, OpKernelArgs a) {
  __shared__ long long start;
  if (threadIdx.x == 0) {
    if (a.hold_ns > 0) spin_until(global_ns() + a.hold_ns);
    start = a.starts ? global_ns() : t.clocks[2 * a.op];
    if (a.starts) t.clocks[2 * a.op] = start;
  }
  __syncthreads();
  // Volatile: other streams' kernels and the CPU write these words while
  // this one runs; each read must go to memory.
  for (uint32_t c = a.checks; c < a.checks + a.check_count; ++c) {
    const DeviceCheck k = t.checks[c];
    const volatile uint32_t* stamps = t.stamps[k.space];
    for (unsigned long long g = k.g0 + threadIdx.x; g < k.g1; g += blockDim.x) {
      const uint32_t seen = stamps[g];
      if (seen == k.expected) continue;
      const unsigned long long slot = atomicAdd(t.log_count, 1ull);
      if (slot < t.log_capacity) t.log[slot] = GranuleMismatch{c, seen, g};
    }
  }
  if (threadIdx.x == 0 && a.run_ns > 0) spin_until(start + a.run_ns);
  __syncthreads();
  for (uint32_t w = a.writes; w < a.writes + a.write_count; ++w) {
    const DeviceWrite k = t.writes[w];
    volatile uint32_t* stamps = t.stamps[k.space];
    for (unsigned long long g = k.g0 + threadIdx.x; g < k.g1; g += blockDim.x) stamps[g] = a.op + 1;
  }
  if (a.ends) {
    __threadfence_system();  // stamps in host memory land before the op counts as done
    __syncthreads();
    if (threadIdx.x == 0) t.clocks[2 * a.op + 1] = global_ns();
  }
}

__global__ void clock_kernel(long long* out) {
  *out = global_ns();
}

// ---- Host side

int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void spin_until_ns(int64_t t) {
  const int64_t left = t - steady_ns();
  if (left > 200000) std::this_thread::sleep_for(std::chrono::nanoseconds(left - 50000));
  while (steady_ns() < t) {
  }
}

// Every stream and host thread gets its own hardware queue (the default is
// 8), so a held-back stream never holds up another. Read when the context
// is created, so it is set before any CUDA call.
void ask_for_connections() {
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
}

enum Flag : uint8_t { kIssued = 1, kReturned = 2 };

class GpuReplay;

struct HostFuncCall {
  GpuReplay* replay;
  uint32_t op;
};

class GpuReplay final : public CudaBackend {
 public:
  explicit GpuReplay(const LaunchList& l) : l_(l), flags_(l.ops.size()) {}
  ~GpuReplay() override { release(); }

  bool init(std::string& error);
  bool run(const std::unordered_map<uint32_t, int64_t>& delays, bool traced_timing, DeviceRun& out,
           std::string& error) override;

 private:
  struct Arena {
    uint32_t space = 0;
    bool host = false;
    char* data = nullptr;
    uint32_t* stamps = nullptr;  // host pointer for the host arena, device pointer otherwise
    uint64_t bytes = 0, granules = 0;
  };

  // Records the first CUDA error; the run goes on issuing (calls fail fast
  // after an error), so no thread waits forever for another.
  bool ok(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return true;
    std::lock_guard lock(error_mutex_);
    if (error_.empty()) error_ = std::string(what) + ": " + cudaGetErrorString(e);
    return false;
  }

  template <typename T>
  bool upload(const std::vector<T>& host, T*& device, const char* what) {
    const size_t bytes = std::max<size_t>(1, host.size()) * sizeof(T);
    if (!ok(cudaMalloc(&device, bytes), what)) return false;
    return host.empty() ||
           ok(cudaMemcpy(device, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), what);
  }

  bool alloc_arenas();
  bool upload_tables();
  bool create_streams_and_events();
  bool reset();
  bool calibrate();
  void collect(DeviceRun& out);
  void release();

  int64_t now() const { return steady_ns() - start_; }
  int64_t delay_of(uint32_t op) const {
    auto it = delays_->find(op);
    return it == delays_->end() ? 0 : it->second;
  }
  void mark(uint32_t op, Flag f);
  void wait_for(const IssueAfter& a);
  Arena* arena(uint32_t space) {
    for (Arena& a : arenas_)
      if (a.space == space) return &a;
    return nullptr;
  }

  void host_thread(uint32_t t);
  void enqueue(uint32_t op, const OpLaunch& o);
  void launch(cudaStream_t s, const OpKernelArgs& args);
  static void CUDART_CB host_func(void* call);
  void run_host_func(uint32_t op);
  void check_on_host(const OpLaunch& o);
  void stamp_on_host(uint32_t op, const OpLaunch& o);

  const LaunchList& l_;
  std::vector<Arena> arenas_;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> events_;
  std::unordered_map<uint32_t, HostFuncCall> host_calls_;  // by op (stable addresses)
  DeviceTables tables_{};
  DeviceCheck* device_checks_ = nullptr;
  DeviceWrite* device_writes_ = nullptr;
  uint32_t** device_stamps_ = nullptr;
  long long* device_clock_ = nullptr;
  uint32_t* host_stamps_ = nullptr;  // the host arena's, when there is one
  uint64_t host_granules_ = 0;

  // Per run.
  const std::unordered_map<uint32_t, int64_t>* delays_ = nullptr;
  bool traced_ = true;
  int64_t start_ = 0;
  int64_t gpu_to_host_ = 0;  // host steady ns = %globaltimer + this
  std::vector<MeasuredTimes> times_;
  std::vector<std::atomic<uint8_t>> flags_;
  std::mutex flag_mutex_;
  std::condition_variable flag_set_;
  std::mutex log_mutex_;
  std::vector<GranuleMismatch> host_log_;
  std::mutex error_mutex_;
  std::string error_;
};

bool GpuReplay::init(std::string& error) {
  const bool done = ok(cudaSetDevice(0), "cudaSetDevice") && alloc_arenas() && upload_tables() &&
                    create_streams_and_events();
  // Loads the kernels now (lazy module loading), not in the first run.
  if (done) {
    launch(cudaStreamLegacy, OpKernelArgs{});
    clock_kernel<<<1, 1>>>(device_clock_);
    ok(cudaGetLastError(), "clock kernel");
    ok(cudaDeviceSynchronize(), "warm-up");
  }
  error = error_;
  return error.empty();
}

bool GpuReplay::alloc_arenas() {
  uint32_t top = 0;
  for (const ArenaSpec& spec : l_.arenas) top = std::max(top, spec.space);
  std::vector<uint32_t*> stamps_by_space(top + 1, nullptr);
  for (const ArenaSpec& spec : l_.arenas) {
    // Listed before allocating, so release() frees whatever was allocated.
    Arena& a = arenas_.emplace_back();
    a.space = spec.space;
    a.host = spec.space == 0;  // race::kHostSpace
    a.bytes = spec.bytes;
    a.granules = spec.granules;
    const size_t stamp_bytes = spec.granules * sizeof(uint32_t);
    // Every traced device is replayed on this one GPU (device 0).
    if (a.host) {
      if (!ok(cudaHostAlloc(reinterpret_cast<void**>(&a.data), a.bytes, cudaHostAllocDefault),
              "pinned host arena") ||
          !ok(cudaHostAlloc(reinterpret_cast<void**>(&a.stamps), stamp_bytes, cudaHostAllocMapped),
              "host stamps"))
        return false;
      std::memset(a.stamps, 0, stamp_bytes);
      host_stamps_ = a.stamps;
      host_granules_ = a.granules;
      if (!ok(cudaHostGetDevicePointer(reinterpret_cast<void**>(&stamps_by_space[a.space]), a.stamps, 0),
              "host stamps on the device"))
        return false;
    } else {
      if (!ok(cudaMalloc(reinterpret_cast<void**>(&a.data), a.bytes), "device arena") ||
          !ok(cudaMalloc(reinterpret_cast<void**>(&a.stamps), stamp_bytes), "device stamps"))
        return false;
      stamps_by_space[a.space] = a.stamps;
    }
  }
  return upload(stamps_by_space, device_stamps_, "stamp table");
}

bool GpuReplay::upload_tables() {
  std::vector<DeviceCheck> checks;
  checks.reserve(l_.checks.size());
  uint64_t checked = 0;
  for (const GranuleCheck& c : l_.checks) {
    checks.push_back({c.g0, c.g1, c.space, c.expected});
    checked += c.g1 - c.g0;
  }
  std::vector<DeviceWrite> writes;
  writes.reserve(l_.writes.size());
  for (const GranuleWrite& w : l_.writes) writes.push_back({w.g0, w.g1, w.space, 0});
  // Room for every checked granule to mismatch once, up to 4 Mi entries.
  const uint64_t capacity = std::clamp<uint64_t>(checked, 1, 1u << 22);
  if (!upload(checks, device_checks_, "checks") || !upload(writes, device_writes_, "writes") ||
      !ok(cudaMalloc(reinterpret_cast<void**>(&tables_.log), capacity * sizeof(GranuleMismatch)),
          "mismatch log") ||
      !ok(cudaMalloc(reinterpret_cast<void**>(&tables_.log_count), sizeof(unsigned long long)),
          "mismatch count") ||
      !ok(cudaMalloc(reinterpret_cast<void**>(&tables_.clocks),
                     std::max<size_t>(1, 2 * l_.ops.size()) * sizeof(long long)),
          "op clocks") ||
      !ok(cudaMalloc(reinterpret_cast<void**>(&device_clock_), sizeof(long long)), "clock"))
    return false;
  tables_.checks = device_checks_;
  tables_.writes = device_writes_;
  tables_.stamps = device_stamps_;
  tables_.log_capacity = capacity;
  return true;
}

bool GpuReplay::create_streams_and_events() {
  int least = 0, greatest = 0;
  if (!ok(cudaDeviceGetStreamPriorityRange(&least, &greatest), "stream priorities")) return false;
  for (const StreamSpec& spec : l_.streams) {
    cudaStream_t s = cudaStreamLegacy;
    if (!spec.legacy) {
      const unsigned flags = spec.non_blocking ? cudaStreamNonBlocking : cudaStreamDefault;
      // Lower numbers are higher priorities: greatest <= priority <= least.
      if (!ok(cudaStreamCreateWithPriority(&s, flags, std::clamp(spec.priority, greatest, least)), "stream"))
        return false;
    }
    streams_.push_back(s);
  }
  events_.resize(l_.events, nullptr);
  for (cudaEvent_t& e : events_)
    if (!ok(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "event")) return false;
  for (uint32_t op = 0; op < l_.ops.size(); ++op)
    if (l_.ops[op].work == Work::kHostFunc) host_calls_[op] = {this, op};
  return true;
}

void GpuReplay::release() {
  cudaDeviceSynchronize();
  for (cudaStream_t s : streams_)
    if (s != cudaStreamLegacy) cudaStreamDestroy(s);
  for (cudaEvent_t e : events_)
    if (e) cudaEventDestroy(e);
  for (const Arena& a : arenas_) {
    if (a.host) {
      if (a.data) cudaFreeHost(a.data);
      if (a.stamps) cudaFreeHost(a.stamps);
    } else {
      if (a.data) cudaFree(a.data);
      if (a.stamps) cudaFree(a.stamps);
    }
  }
  for (void* p : {static_cast<void*>(device_checks_), static_cast<void*>(device_writes_),
                  static_cast<void*>(device_stamps_), static_cast<void*>(tables_.log),
                  static_cast<void*>(tables_.log_count), static_cast<void*>(tables_.clocks),
                  static_cast<void*>(device_clock_)})
    if (p) cudaFree(p);
}

bool GpuReplay::reset() {
  for (std::atomic<uint8_t>& f : flags_) f.store(0, std::memory_order_relaxed);
  times_.assign(l_.ops.size(), MeasuredTimes{});
  host_log_.clear();
  error_.clear();
  for (const Arena& a : arenas_) {
    if (a.host)
      std::memset(a.stamps, 0, a.granules * sizeof(uint32_t));
    else
      ok(cudaMemset(a.stamps, 0, a.granules * sizeof(uint32_t)), "reset stamps");
  }
  ok(cudaMemset(tables_.log_count, 0, sizeof(unsigned long long)), "reset log");
  ok(cudaMemset(tables_.clocks, 0, std::max<size_t>(1, 2 * l_.ops.size()) * sizeof(long long)),
     "reset clocks");
  return ok(cudaDeviceSynchronize(), "reset");
}

// %globaltimer against the host clock: the read with the shortest round
// trip of a few places the GPU's reading at its midpoint.
bool GpuReplay::calibrate() {
  int64_t best = INT64_MAX;
  for (int k = 0; k < 5; ++k) {
    long long gpu = 0;
    const int64_t before = steady_ns();
    clock_kernel<<<1, 1>>>(device_clock_);
    if (!ok(cudaMemcpy(&gpu, device_clock_, sizeof gpu, cudaMemcpyDeviceToHost), "calibration")) return false;
    const int64_t after = steady_ns();
    if (after - before < best) {
      best = after - before;
      gpu_to_host_ = before + (after - before) / 2 - gpu;
    }
  }
  return true;
}

bool GpuReplay::run(const std::unordered_map<uint32_t, int64_t>& delays, bool traced_timing, DeviceRun& out,
                    std::string& error) {
  delays_ = &delays;
  traced_ = traced_timing;
  if (reset() && calibrate()) {
    start_ = steady_ns();
    std::vector<std::thread> threads;
    for (uint32_t t = 0; t < l_.threads.size(); ++t) threads.emplace_back([this, t] { host_thread(t); });
    for (std::thread& t : threads) t.join();
    if (ok(cudaDeviceSynchronize(), "replay")) collect(out);
  }
  error = error_;
  return error.empty();
}

void GpuReplay::collect(DeviceRun& out) {
  std::vector<long long> clocks(2 * l_.ops.size());
  unsigned long long logged = 0;
  if (!clocks.empty())
    ok(cudaMemcpy(clocks.data(), tables_.clocks, clocks.size() * sizeof(long long), cudaMemcpyDeviceToHost),
       "clocks");
  ok(cudaMemcpy(&logged, tables_.log_count, sizeof logged, cudaMemcpyDeviceToHost), "log count");
  out.log.resize(std::min<unsigned long long>(logged, tables_.log_capacity));
  if (!out.log.empty())
    ok(cudaMemcpy(out.log.data(), tables_.log, out.log.size() * sizeof(GranuleMismatch),
                  cudaMemcpyDeviceToHost),
       "log");
  out.log.insert(out.log.end(), host_log_.begin(), host_log_.end());

  out.times = times_;
  for (size_t op = 0; op < l_.ops.size(); ++op) {
    if (clocks[2 * op] == 0) continue;  // no kernel of its own (or a host function, timed on the CPU)
    // The calibration is good to a few microseconds: never before the run.
    out.times[op].device_start = std::max<int64_t>(0, clocks[2 * op] + gpu_to_host_ - start_);
    out.times[op].device_end = std::max<int64_t>(0, clocks[2 * op + 1] + gpu_to_host_ - start_);
  }

  out.final_stamps.clear();
  for (const Arena& a : arenas_) {
    std::vector<uint32_t> stamps(a.granules);
    if (a.host)
      std::memcpy(stamps.data(), a.stamps, a.granules * sizeof(uint32_t));
    else
      ok(cudaMemcpy(stamps.data(), a.stamps, a.granules * sizeof(uint32_t), cudaMemcpyDeviceToHost),
         "stamps");
    out.final_stamps.push_back(std::move(stamps));
  }
}

void GpuReplay::mark(uint32_t op, Flag f) {
  {
    std::lock_guard lock(flag_mutex_);
    flags_[op].fetch_or(f, std::memory_order_release);
  }
  flag_set_.notify_all();
}

void GpuReplay::wait_for(const IssueAfter& a) {
  const uint8_t need = a.returned ? kReturned : kIssued;
  if (flags_[a.op].load(std::memory_order_acquire) & need) return;
  std::unique_lock lock(flag_mutex_);
  flag_set_.wait(lock, [&] { return flags_[a.op].load(std::memory_order_acquire) & need; });
}

void GpuReplay::host_thread(uint32_t t) {
  ok(cudaSetDevice(0), "cudaSetDevice");
  for (uint32_t op : l_.threads[t]) {
    const OpLaunch& o = l_.ops[op];
    for (uint32_t k = o.issue_after; k < o.issue_after + o.issue_after_count; ++k)
      wait_for(l_.issue_after[k]);
    if (o.stream < 0)
      if (const int64_t hold = delay_of(op)) std::this_thread::sleep_for(std::chrono::nanoseconds(hold));
    MeasuredTimes& m = times_[op];
    m.host_start = now();
    const int64_t call_end = steady_ns() + (traced_ ? o.call_ns : 0);
    if (o.work == Work::kHostAccess) {
      spin_until_ns(call_end);  // a host access reads at the end of its call, as in the host backend
      check_on_host(o);
    }
    if (o.stream >= 0) enqueue(op, o);
    m.issue = now();
    mark(op, kIssued);
    for (uint32_t k = o.joins; k < o.joins + o.join_count; ++k)
      ok(cudaEventSynchronize(events_[l_.event_refs[k]]), "cudaEventSynchronize");
    if (o.work == Work::kHostAccess) stamp_on_host(op, o);
    spin_until_ns(call_end);
    m.host_end = now();
    mark(op, kReturned);
  }
}

void GpuReplay::launch(cudaStream_t s, const OpKernelArgs& args) {
  op_kernel<<<1, kThreads, 0, s>>>(tables_, args);
  ok(cudaGetLastError(), "kernel launch");
}

void GpuReplay::enqueue(uint32_t op, const OpLaunch& o) {
  cudaStream_t s = streams_[o.stream];
  for (uint32_t k = o.waits; k < o.waits + o.wait_count; ++k)
    ok(cudaStreamWaitEvent(s, events_[l_.event_refs[k]], 0), "cudaStreamWaitEvent");
  const long long hold = delay_of(op);
  const long long run_ns = traced_ ? o.device_ns : 0;
  switch (o.work) {
    case Work::kKernel:
      launch(s, {op, o.checks, o.check_count, o.writes, o.write_count, hold, run_ns, true, true});
      break;
    case Work::kCopy:
    case Work::kMemset: {
      // Copies cannot check stamps: a kernel before them checks what they
      // read, one after them stamps what they wrote (and pads to the
      // traced duration).
      launch(s, {op, o.checks, o.check_count, 0, 0, hold, 0, true, false});
      // One cudaMemcpyAsync per run: a pitched copy's rows are islands of
      // their own in the arenas, with no common pitch for cudaMemcpy2DAsync.
      for (uint32_t k = o.runs; k < o.runs + o.run_count; ++k) {
        const CopyRun& r = l_.copy_runs[k];
        if (!r.bytes) continue;
        Arena* dst = arena(r.dst_space);
        Arena* src = arena(r.src_space);
        if (o.work == Work::kCopy && dst && src)
          ok(cudaMemcpyAsync(dst->data + r.dst_offset, src->data + r.src_offset, r.bytes, cudaMemcpyDefault,
                             s),
             "cudaMemcpyAsync");
        else if (dst && !dst->host)  // host memory: only the stamps matter
          ok(cudaMemsetAsync(dst->data + r.dst_offset, 0, r.bytes, s), "cudaMemsetAsync");
      }
      launch(s, {op, 0, 0, o.writes, o.write_count, 0, run_ns, false, true});
      break;
    }
    case Work::kHostFunc:
      ok(cudaLaunchHostFunc(s, &GpuReplay::host_func, &host_calls_.at(op)), "cudaLaunchHostFunc");
      break;
    case Work::kNone:
    case Work::kHostAccess:
      if (hold > 0) launch(s, {op, 0, 0, 0, 0, hold, 0, true, true});
      break;
  }
  if (o.done_event >= 0) ok(cudaEventRecord(events_[o.done_event], s), "cudaEventRecord");
}

void CUDART_CB GpuReplay::host_func(void* call) {
  const auto* c = static_cast<const HostFuncCall*>(call);
  c->replay->run_host_func(c->op);
}

// A host function runs on CUDA's callback thread, in stream order.
void GpuReplay::run_host_func(uint32_t op) {
  const OpLaunch& o = l_.ops[op];
  if (const int64_t hold = delay_of(op)) std::this_thread::sleep_for(std::chrono::nanoseconds(hold));
  MeasuredTimes& m = times_[op];
  m.device_start = now();
  check_on_host(o);
  if (traced_) spin_until_ns(start_ + m.device_start + o.device_ns);
  stamp_on_host(op, o);
  m.device_end = now();
}

// The CPU sees the host arena's stamps only; checks of device memory from
// the host are skipped (a host access or host function cannot touch it).
void GpuReplay::check_on_host(const OpLaunch& o) {
  for (uint32_t k = o.checks; k < o.checks + o.check_count; ++k) {
    const GranuleCheck& c = l_.checks[k];
    if (c.space != 0 || !host_stamps_) continue;
    for (uint64_t g = c.g0; g < c.g1 && g < host_granules_; ++g) {
      const uint32_t seen = __atomic_load_n(&host_stamps_[g], __ATOMIC_RELAXED);
      if (seen == c.expected) continue;
      std::lock_guard lock(log_mutex_);
      host_log_.push_back({k, seen, g});
    }
  }
}

void GpuReplay::stamp_on_host(uint32_t op, const OpLaunch& o) {
  for (uint32_t k = o.writes; k < o.writes + o.write_count; ++k) {
    const GranuleWrite& w = l_.writes[k];
    if (w.space != 0 || !host_stamps_) continue;
    for (uint64_t g = w.g0; g < w.g1 && g < host_granules_; ++g)
      __atomic_store_n(&host_stamps_[g], op + 1, __ATOMIC_RELAXED);
  }
}

}  // namespace

std::unique_ptr<CudaBackend> CudaBackend::create(const LaunchList& launches, std::string& error) {
  ask_for_connections();
  auto replay = std::make_unique<GpuReplay>(launches);
  if (!replay->init(error)) return nullptr;
  return replay;
}

bool cuda_runtime_ready(std::string& why) {
  ask_for_connections();
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    why = std::string("the CUDA runtime finds no usable GPU (") +
          (e != cudaSuccess ? cudaGetErrorString(e) : "no device") + "): use --backend host";
    return false;
  }
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
  if (major * 10 + minor < 75) {
    why = "GPU 0 has compute capability " + std::to_string(major) + "." + std::to_string(minor) +
          "; the replay kernels need 7.5 or later: use --backend host";
    return false;
  }
  return true;
}

}  // namespace racetrack::replay
