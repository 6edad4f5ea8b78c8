// C4 "reloaded block reused by the reload stream" (torchtune issue 1867,
// axolotl/TRL): a tensor reloaded into a block allocated on the reload stream is
// read on the compute stream, freed in reload-stream order, and its block is
// handed to the next reload while compute may still be reading it.
//
//   H: R1 = alloc on H; R1 <- A (H2D); e1       C: wait e1; (busy) out1 = R1
//   free R1 on H; R2 = alloc on H (R1's block); H: R2 <- B (H2D); e2
//   C: wait e2; out2 = R2
//
// The stream-ordered pool stands in for PyTorch's caching allocator.
// Racing pair: the kernel reading R1 (compute stream) and the H2D writing R2
// (reload stream), a reuse of R1's block. Fix (--fixed, what Megatron-LM FGAO
// does before each reload): h2d.wait_stream(C) before freeing and allocating
// on the reload stream.
#include "workload.cuh"

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv, "c4_reloaded_block_reused");
  const size_t n = options.elements, bytes = n * sizeof(float);
  configure_stream_ordered_pool();
  cudaStream_t compute = make_stream("compute"), reload = make_stream("reload");
  cudaEvent_t r1_loaded = make_event(), r1_used = make_event(), r2_loaded = make_event();
  float* out1 = device_buffer(n, "out1");
  float* out2 = device_buffer(n, "out2");
  float* a = pinned_buffer(n, "A");
  float* b = pinned_buffer(n, "B");
  float* check1 = pinned_buffer(n, "check1");
  float* check2 = pinned_buffer(n, "check2");

  Tally tally("c4_reloaded_block_reused", options);
  int block_reused = 0;
  for (int it = 0; it < options.warmup + options.iterations; ++it) {
    const float seed = iteration_seed(it);
    host_fill(a, n, seed);  // two offloaded activations
    host_fill(b, n, -seed);

    nvtxRangePushA("backward layer1");
    float* r1 = pool_buffer(n, reload, "R1");
    CHECK_CUDA(cudaMemcpyAsync(r1, a, bytes, cudaMemcpyHostToDevice, reload));
    CHECK_CUDA(cudaEventRecord(r1_loaded, reload));
    CHECK_CUDA(cudaStreamWaitEvent(compute, r1_loaded, 0));
    spin(options.spin_ms, compute);  // earlier backward work still queued
    scale(r1, out1, n, 1, 0, compute);  // out1 = layer_bwd(R1)
    nvtxRangePop();

    nvtxRangePushA("backward layer0: prefetch");
    if (options.fixed) {
      CHECK_CUDA(cudaEventRecord(r1_used, compute));  // h2d.wait_stream(C)
      CHECK_CUDA(cudaStreamWaitEvent(reload, r1_used, 0));
    }
    const uintptr_t r1_address = reinterpret_cast<uintptr_t>(r1);
    CHECK_CUDA(cudaFreeAsync(r1, reload));  // del R1: back to its allocation stream's pool
    float* r2 = pool_buffer(n, reload, "R2");
    block_reused += reinterpret_cast<uintptr_t>(r2) == r1_address;
    CHECK_CUDA(cudaMemcpyAsync(r2, b, bytes, cudaMemcpyHostToDevice, reload));
    CHECK_CUDA(cudaEventRecord(r2_loaded, reload));
    nvtxRangePop();

    nvtxRangePushA("backward layer0");
    CHECK_CUDA(cudaStreamWaitEvent(compute, r2_loaded, 0));
    scale(r2, out2, n, 1, 0, compute);  // out2 = layer_bwd(R2)
    CHECK_CUDA(cudaMemcpyAsync(check1, out1, bytes, cudaMemcpyDeviceToHost, compute));
    CHECK_CUDA(cudaMemcpyAsync(check2, out2, bytes, cudaMemcpyDeviceToHost, compute));
    CHECK_CUDA(cudaStreamSynchronize(compute));
    nvtxRangePop();

    tally.record(it, count_mismatches(check1, n, seed) + count_mismatches(check2, n, -seed));
    CHECK_CUDA(cudaFreeAsync(r2, reload));
    CHECK_CUDA(cudaDeviceSynchronize());  // nothing carries over into the next iteration
  }
  std::printf("R2 got R1's block in %d of %d iterations\n", block_reused, options.warmup + options.iterations);
  return tally.report();
}
