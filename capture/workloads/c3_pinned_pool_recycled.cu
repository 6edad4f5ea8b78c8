// C3 "pinned buffer recycled too early" (Megatron-LM main's OffloadTensorPool):
// a host-side pool takes pinned A back right after the reload that reads it was
// enqueued, and hands it to the next offload, whose D2H is ordered after the
// compute stream only.
//
//   H: (busy) R <- A (H2D); e_rel on H        backward of microbatch 0
//   pool.free(A): no CUDA call
//   C: Z = layer_fwd(inp); D waits C; D: A <- Z (D2H)   forward of microbatch 1
//   C waits e_rel; dX = layer_bwd(R)
//
// Racing pair: the H2D reading A (reload stream) and the D2H writing A
// (offload stream). Fix (--fixed): the offload stream also waits on e_rel
// before reusing A.
#include "workload.cuh"

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv, "c3_pinned_pool_recycled");
  const size_t n = options.elements, bytes = n * sizeof(float);
  cudaStream_t compute = make_stream("compute"), offload = make_stream("offload"),
               reload = make_stream("reload");
  cudaEvent_t reloaded = make_event(), z_ready = make_event();
  float* r = device_buffer(n, "R");
  float* inp = device_buffer(n, "inp");
  float* z = device_buffer(n, "Z");
  float* dx = device_buffer(n, "dX");
  float* a = pinned_buffer(n, "A (pooled pinned buffer)");
  float* check = pinned_buffer(n, "check");

  Tally tally("c3_pinned_pool_recycled", options);
  for (int it = 0; it < options.warmup + options.iterations; ++it) {
    const float seed = iteration_seed(it);
    host_fill(a, n, seed);  // microbatch 0's activation, offloaded earlier

    nvtxRangePushA("backward mb0: prefetch");
    spin(options.spin_ms, reload);  // earlier reloads still queued
    CHECK_CUDA(cudaMemcpyAsync(r, a, bytes, cudaMemcpyHostToDevice, reload));
    CHECK_CUDA(cudaEventRecord(reloaded, reload));
    nvtxRangePop();
    nvtxMarkA("pool.free(A)");  // a Python-level pool: no CUDA call at all

    nvtxRangePushA("forward mb1: offload");
    fill(inp, n, -seed, compute);
    scale(inp, z, n, 2, 1, compute);  // Z = layer_fwd(inp)
    CHECK_CUDA(cudaEventRecord(z_ready, compute));  // d2h.wait_stream(C)
    CHECK_CUDA(cudaStreamWaitEvent(offload, z_ready, 0));
    if (options.fixed) CHECK_CUDA(cudaStreamWaitEvent(offload, reloaded, 0));
    CHECK_CUDA(cudaMemcpyAsync(a, z, bytes, cudaMemcpyDeviceToHost, offload));  // pool.get() returned A
    nvtxRangePop();

    nvtxRangePushA("backward mb0");
    CHECK_CUDA(cudaStreamWaitEvent(compute, reloaded, 0));
    scale(r, dx, n, 1, 0, compute);  // dX = layer_bwd(R)
    CHECK_CUDA(cudaMemcpyAsync(check, dx, bytes, cudaMemcpyDeviceToHost, compute));
    CHECK_CUDA(cudaStreamSynchronize(compute));
    nvtxRangePop();

    tally.record(it, count_mismatches(check, n, seed));
    CHECK_CUDA(cudaDeviceSynchronize());  // nothing carries over into the next iteration
  }
  return tally.report();
}
