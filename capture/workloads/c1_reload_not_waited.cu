// C1 "reload not waited" (Megatron-LM issue 7398): the backward reloads an
// activation from its pinned buffer inline on the compute stream without
// waiting for the offload that fills that buffer.
//
//   forward:  X = layer_fwd(inp) on C; D waits C; D: (busy) P <- X (D2H); e_off on D
//   backward: R <- P (H2D on C, no wait on e_off); dX = layer_bwd(R) on C
//
// Racing pair: the D2H writing P (offload stream) and the H2D reading P
// (compute stream). Fix (--fixed, Megatron-LM PR 7399): C waits on e_off
// right before the reload.
#include "workload.cuh"

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv, "c1_reload_not_waited");
  const size_t n = options.elements, bytes = n * sizeof(float);
  cudaStream_t compute = make_stream("compute"), offload = make_stream("offload");
  cudaEvent_t x_ready = make_event(), offloaded = make_event();
  float* inp = device_buffer(n, "inp");
  float* x = device_buffer(n, "X");
  float* r = device_buffer(n, "R");
  float* dx = device_buffer(n, "dX");
  float* p = pinned_buffer(n, "P");
  float* check = pinned_buffer(n, "check");

  Tally tally("c1_reload_not_waited", options);
  for (int it = 0; it < options.warmup + options.iterations; ++it) {
    const float seed = iteration_seed(it);
    nvtxRangePushA("forward");
    fill(inp, n, seed, compute);
    scale(inp, x, n, 2, 1, compute);  // X = layer_fwd(inp)
    CHECK_CUDA(cudaEventRecord(x_ready, compute));  // d2h.wait_stream(C)
    CHECK_CUDA(cudaStreamWaitEvent(offload, x_ready, 0));
    spin(options.spin_ms, offload);  // earlier offloads still queued
    CHECK_CUDA(cudaMemcpyAsync(p, x, bytes, cudaMemcpyDeviceToHost, offload));
    CHECK_CUDA(cudaEventRecord(offloaded, offload));
    nvtxRangePop();

    nvtxRangePushA("backward");
    if (options.fixed) CHECK_CUDA(cudaStreamWaitEvent(compute, offloaded, 0));
    CHECK_CUDA(cudaMemcpyAsync(r, p, bytes, cudaMemcpyHostToDevice, compute));  // inline reload
    scale(r, dx, n, 1, 0, compute);  // dX = layer_bwd(R)
    CHECK_CUDA(cudaMemcpyAsync(check, dx, bytes, cudaMemcpyDeviceToHost, compute));
    CHECK_CUDA(cudaStreamSynchronize(compute));
    nvtxRangePop();

    tally.record(it, count_mismatches(check, n, seed, 2, 1));
    CHECK_CUDA(cudaDeviceSynchronize());  // nothing carries over into the next iteration
  }
  return tally.report();
}
