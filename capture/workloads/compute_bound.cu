// Compute-bound overhead benchmark: a few long kernels per step, so GPU time
// sets the step time and a tracer's per-launch cost should vanish in it.
#include "bench_common.cuh"

// Each element goes through `rounds` dependent multiply-adds: a few
// milliseconds per launch at the sizes below on an H200.
__global__ void fma_rounds_kernel(float* data, size_t n, int rounds) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    float v = data[i];
    for (int r = 0; r < rounds; ++r) v = v * 0.999f + 0.001f;
    data[i] = v;
  }
}

int main(int argc, char** argv) {
  BenchOptions defaults;
  defaults.steps = 10;
  defaults.warmup = 2;
  defaults.kernels = 4;
  const BenchOptions options = parse_bench_options(argc, argv, "compute_bound", defaults);
  constexpr size_t n = size_t{1} << 24;
  constexpr int rounds = 4096;
  cudaStream_t stream = make_stream("compute");
  float* data = device_buffer(n, "data");
  CHECK_CUDA(cudaMemsetAsync(data, 0, n * sizeof(float), stream));
  time_steps(options, stream, [&] {
    for (int k = 0; k < options.kernels; ++k) {
      if (options.annotate) racetrack_kernel_reads_writes(data, n * sizeof(float));
      fma_rounds_kernel<<<grid_for(n), 256, 0, stream>>>(data, n, rounds);
    }
    CHECK_CUDA(cudaGetLastError());
  });
  return 0;
}
