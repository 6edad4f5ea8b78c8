// Launch-bound overhead benchmark: many tiny kernels per step, so the host's
// launch path (and whatever a tracer adds to it) sets the step time.
#include "bench_common.cuh"

int main(int argc, char** argv) {
  const BenchOptions options = parse_bench_options(argc, argv, "launch_bound", BenchOptions{});
  constexpr size_t n = 256;
  cudaStream_t stream = make_stream("compute");
  float* data = device_buffer(n, "data");
  CHECK_CUDA(cudaMemsetAsync(data, 0, n * sizeof(float), stream));
  time_steps(options, stream, [&] {
    for (int k = 0; k < options.kernels; ++k) {
      if (options.annotate) racetrack_kernel_reads_writes(data, n * sizeof(float));
      scale_kernel<<<1, n, 0, stream>>>(data, data, n, 1.0f, 1.0f);
    }
    CHECK_CUDA(cudaGetLastError());
  });
  return 0;
}
