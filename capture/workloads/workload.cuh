// What the CUDA workloads share: error checking, options, three small
// kernels with annotated launchers, buffers with labels, and the
// corruption tally each hazard program prints at the end.
//
// The hazard programs model activation offloading (docs/offload-hazards.md):
// a compute stream, a non-blocking offload (D2H) stream and a non-blocking
// reload (H2D) stream. A spin kernel keeps the stream whose op comes first
// in the racing pair busy, so that an unordered second op really overtakes it.
#pragma once

#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>
#include <racetrack/annotate.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK_CUDA(call) check_cuda((call), #call, __FILE__, __LINE__)

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, call, cudaGetErrorString(status));
  std::exit(1);
}

// ---- options

struct Options {
  bool fixed = false;       // apply the one-line fix
  int warmup = 1;           // iterations that warm the allocators, not counted
  int iterations = 3;       // counted iterations
  size_t elements = 1 << 20;  // floats per buffer (4 MiB)
  double spin_ms = 20;      // how long the slow stream is kept busy
};

inline Options parse_options(int argc, char** argv, const char* program) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (std::strcmp(arg, "--fixed") == 0) {
      options.fixed = true;
    } else if (std::strcmp(arg, "--warmup") == 0 && value) {
      options.warmup = std::atoi(argv[++i]);
    } else if (std::strcmp(arg, "--iterations") == 0 && value) {
      options.iterations = std::atoi(argv[++i]);
    } else if (std::strcmp(arg, "--elements") == 0 && value) {
      options.elements = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(arg, "--spin-ms") == 0 && value) {
      options.spin_ms = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: %s [--fixed] [--warmup N] [--iterations N] [--elements N] [--spin-ms MS]\n",
                   program);
      std::exit(2);
    }
  }
  if (options.warmup < 0 || options.iterations < 1 || options.elements == 0) {
    std::fprintf(stderr, "%s: --iterations and --elements must be positive\n", program);
    std::exit(2);
  }
  return options;
}

// ---- kernels

// The value fill_kernel writes at index i; exact in float for the seeds used.
__host__ __device__ inline float pattern(size_t i, float seed) { return seed + static_cast<float>(i % 1024); }

// Each iteration uses its own data, so stale bytes from the previous one show.
inline float iteration_seed(int iteration) { return 4096.0f * static_cast<float>(iteration + 1); }

// Busy-waits on the GPU's nanosecond timer: keeps one stream occupied.
__global__ void spin_kernel(unsigned long long nanoseconds) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < nanoseconds);
}

__global__ void fill_kernel(float* out, size_t n, float seed) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    out[i] = pattern(i, seed);
}

// out = a * in + b (in and out may be the same buffer).
__global__ void scale_kernel(const float* in, float* out, size_t n, float a, float b) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x)
    out[i] = a * in[i] + b;
}

inline unsigned grid_for(size_t n) {
  const size_t blocks = (n + 255) / 256;
  return static_cast<unsigned>(blocks < 1024 ? blocks : 1024);
}

// Launchers: each tells the capturer exactly what the kernel touches.
inline void spin(double milliseconds, cudaStream_t stream) {
  spin_kernel<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(milliseconds * 1e6));
  CHECK_CUDA(cudaGetLastError());
}

inline void fill(float* out, size_t n, float seed, cudaStream_t stream) {
  racetrack_kernel_writes(out, n * sizeof(float));
  fill_kernel<<<grid_for(n), 256, 0, stream>>>(out, n, seed);
  CHECK_CUDA(cudaGetLastError());
}

inline void scale(const float* in, float* out, size_t n, float a, float b, cudaStream_t stream) {
  racetrack_kernel_reads(in, n * sizeof(float));
  racetrack_kernel_writes(out, n * sizeof(float));
  scale_kernel<<<grid_for(n), 256, 0, stream>>>(in, out, n, a, b);
  CHECK_CUDA(cudaGetLastError());
}

// ---- streams, events, buffers

// A non-blocking stream, as PyTorch's side streams are; the name shows in reports.
inline cudaStream_t make_stream(const char* name) {
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  nvtxNameCudaStreamA(stream, name);
  return stream;
}

inline cudaEvent_t make_event() {
  cudaEvent_t event;
  CHECK_CUDA(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  return event;
}

inline float* device_buffer(size_t n, const char* label) {
  float* p;
  CHECK_CUDA(cudaMalloc(&p, n * sizeof(float)));
  racetrack_label(p, n * sizeof(float), label);
  return p;
}

inline float* pinned_buffer(size_t n, const char* label) {
  float* p;
  CHECK_CUDA(cudaMallocHost(&p, n * sizeof(float)));
  racetrack_label(p, n * sizeof(float), label);
  return p;
}

// The stream-ordered pool plays PyTorch's caching allocator: freed blocks stay
// cached (no release at syncs), and a block is handed out again only in
// stream order, never through hidden driver dependencies the trace cannot show.
inline void configure_stream_ordered_pool() {
  cudaMemPool_t pool;
  CHECK_CUDA(cudaDeviceGetDefaultMemPool(&pool, 0));
  uint64_t keep_everything = UINT64_MAX;
  CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything));
  int off = 0;
  CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &off));
  CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &off));
}

inline float* pool_buffer(size_t n, cudaStream_t stream, const char* label) {
  float* p;
  CHECK_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&p), n * sizeof(float), stream));
  racetrack_label(p, n * sizeof(float), label);
  return p;
}

// ---- host side

inline void host_fill(float* p, size_t n, float seed) {
  racetrack_host_writes(p, n * sizeof(float));
  for (size_t i = 0; i < n; ++i) p[i] = pattern(i, seed);
}

// How many elements differ from a * pattern(i, seed) + b.
inline size_t count_mismatches(const float* p, size_t n, float seed, float a = 1, float b = 0) {
  racetrack_host_reads(p, n * sizeof(float));
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) bad += p[i] != a * pattern(i, seed) + b;
  return bad;
}

// Counts the counted iterations whose result was corrupted and prints the verdict.
class Tally {
 public:
  Tally(const char* program, const Options& options) : program_(program), options_(options) {}

  void record(int iteration, size_t bad_elements) {
    if (iteration < options_.warmup) return;
    ++counted_;
    if (bad_elements) {
      ++corrupted_;
      std::printf("iteration %d: %zu of %zu elements corrupted\n", iteration, bad_elements, options_.elements);
    }
  }

  // The race may or may not manifest: the exit status does not depend on it.
  int report() const {
    std::printf("%s %s: %d of %d iterations corrupted: %s\n", program_, options_.fixed ? "fixed" : "buggy",
                corrupted_, counted_, corrupted_ ? "DATA CORRUPTED (the race manifested)" : "data intact");
    std::printf("corrupted_iterations=%d\n", corrupted_);
    return 0;
  }

 private:
  const char* program_;
  Options options_;
  int counted_ = 0;
  int corrupted_ = 0;
};
