// C2 "offloaded source freed without record_stream": the activation being
// offloaded is freed in compute-stream order while the D2H still reads it, and
// the next allocation on the compute stream gets the same block.
//
//   C: X = layer_fwd(inp); D waits C; D: (busy) P <- X (D2H)
//   free X on C; Y = alloc on C (X's block); C: fill(Y)
//
// The stream-ordered pool stands in for PyTorch's caching allocator.
// Racing pair: the D2H reading X (offload stream) and the fill kernel writing
// Y (compute stream), a reuse of X's block. Fix (--fixed, the
// record_stream(D) equivalent): free X in the offload stream's order, so its
// block is handed out again only after the D2H has read it.
#include "workload.cuh"

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv, "c2_offload_source_freed");
  const size_t n = options.elements, bytes = n * sizeof(float);
  configure_stream_ordered_pool();
  cudaStream_t compute = make_stream("compute"), offload = make_stream("offload");
  cudaEvent_t x_ready = make_event();
  float* inp = device_buffer(n, "inp");
  float* p = pinned_buffer(n, "P");

  Tally tally("c2_offload_source_freed", options);
  int block_reused = 0;
  for (int it = 0; it < options.warmup + options.iterations; ++it) {
    const float seed = iteration_seed(it);
    nvtxRangePushA("forward");
    float* x = pool_buffer(n, compute, "X");
    fill(inp, n, seed, compute);
    scale(inp, x, n, 2, 1, compute);  // X = layer_fwd(inp)
    CHECK_CUDA(cudaEventRecord(x_ready, compute));  // d2h.wait_stream(C)
    CHECK_CUDA(cudaStreamWaitEvent(offload, x_ready, 0));
    spin(options.spin_ms, offload);  // earlier offloads still queued
    CHECK_CUDA(cudaMemcpyAsync(p, x, bytes, cudaMemcpyDeviceToHost, offload));
    // X.untyped_storage().resize_(0): only the offload copy needs X now.
    const uintptr_t x_address = reinterpret_cast<uintptr_t>(x);
    CHECK_CUDA(cudaFreeAsync(x, options.fixed ? offload : compute));
    float* y = pool_buffer(n, compute, "Y");  // the next activation
    block_reused += reinterpret_cast<uintptr_t>(y) == x_address;
    fill(y, n, -seed, compute);
    nvtxRangePop();

    CHECK_CUDA(cudaStreamSynchronize(offload));
    tally.record(it, count_mismatches(p, n, seed, 2, 1));
    CHECK_CUDA(cudaFreeAsync(y, compute));
    CHECK_CUDA(cudaDeviceSynchronize());  // nothing carries over into the next iteration
  }
  std::printf("Y got X's block in %d of %d iterations\n", block_reused, options.warmup + options.iterations);
  return tally.report();
}
