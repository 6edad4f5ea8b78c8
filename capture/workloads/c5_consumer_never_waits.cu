// C5 "consumer never waits for the reload" (diffusers PR 13502,
// ROCm/pytorch issue 3194): a tensor is reloaded on a transfer stream and used
// on the compute stream with no wait at all.
//
//   H: (busy) R <- P (H2D); e_r on H
//   C: out = layer_fwd(R)            (no wait on e_r)
//
// Racing pair: the H2D writing R (reload stream) and the kernel reading R
// (compute stream). Fix (--fixed): C waits on e_r before the kernel.
#include "workload.cuh"

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv, "c5_consumer_never_waits");
  const size_t n = options.elements, bytes = n * sizeof(float);
  cudaStream_t compute = make_stream("compute"), reload = make_stream("reload");
  cudaEvent_t reloaded = make_event();
  float* r = device_buffer(n, "R");
  float* out = device_buffer(n, "out");
  float* p = pinned_buffer(n, "P");
  float* check = pinned_buffer(n, "check");

  Tally tally("c5_consumer_never_waits", options);
  for (int it = 0; it < options.warmup + options.iterations; ++it) {
    const float seed = iteration_seed(it);
    host_fill(p, n, seed);  // the offloaded copy of this iteration's tensor

    nvtxRangePushA("onload");
    spin(options.spin_ms, reload);  // earlier onloads still queued
    CHECK_CUDA(cudaMemcpyAsync(r, p, bytes, cudaMemcpyHostToDevice, reload));
    CHECK_CUDA(cudaEventRecord(reloaded, reload));
    nvtxRangePop();

    nvtxRangePushA("forward");
    if (options.fixed) CHECK_CUDA(cudaStreamWaitEvent(compute, reloaded, 0));
    scale(r, out, n, 1, 0, compute);  // out = layer_fwd(R)
    CHECK_CUDA(cudaMemcpyAsync(check, out, bytes, cudaMemcpyDeviceToHost, compute));
    CHECK_CUDA(cudaStreamSynchronize(compute));
    nvtxRangePop();

    tally.record(it, count_mismatches(check, n, seed));
    CHECK_CUDA(cudaDeviceSynchronize());  // nothing carries over into the next iteration
  }
  return tally.report();
}
