// Corpus, sm_90 only: TMA tensor copies and bulk copies.
#include <cuda.h>
#include <cstdint>

__device__ inline uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

// The tensor map (a 128-byte __grid_constant__ parameter, 64-byte aligned
// in the buffer) holds the global address; which of its words does is not
// documented, so all sixteen count as read (p1: every word of parameter 1).
// expect k_tma_load: ptr=p1,p2 reads=p1 writes=p2
extern "C" __global__ void k_tma_load(const __grid_constant__ CUtensorMap tmap, float* out) {
  __shared__ alignas(128) float tile[16 * 16];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)));
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&bar)), "r"(1024));
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
            smem(tile)),
        "l"(reinterpret_cast<uint64_t>(&tmap)), "r"(0), "r"((int)blockIdx.x * 16), "r"(smem(&bar))
        : "memory");
  }
  __syncthreads();
  asm volatile(
      "{\n.reg .pred p;\nwait:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra wait;\n}" ::"r"(smem(&bar)));
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x & 255];
}

// expect k_tma_store: ptr=p1,p2 reads=p1 writes=p2
extern "C" __global__ void k_tma_store(const float* in, const __grid_constant__ CUtensorMap tmap) {
  __shared__ alignas(128) float tile[16 * 16];
  tile[threadIdx.x & 255] = in[blockIdx.x * blockDim.x + threadIdx.x];
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                     reinterpret_cast<uint64_t>(&tmap)),
                 "r"(0), "r"((int)blockIdx.x * 16), "r"(smem(tile))
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group.read 0;");
  }
}

// Bulk (non-tensor) copies: global to shared, then shared to global.
// expect k_bulk_copy: ptr=1,2 reads=2 writes=1
extern "C" __global__ void k_bulk_copy(float* out, const float* in) {
  __shared__ alignas(128) float buf[1024];
  __shared__ alignas(8) uint64_t bar;
  const float* src = in + blockIdx.x * 1024;
  float* dst = out + blockIdx.x * 1024;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)));
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&bar)), "r"(4096));
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem(buf)),
                 "l"(src), "r"(4096), "r"(smem(&bar))
                 : "memory");
  }
  __syncthreads();
  asm volatile(
      "{\n.reg .pred p;\nwait:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra wait;\n}" ::"r"(smem(&bar)));
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem(buf)), "r"(4096)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group.read 0;");
  }
}

// A bulk reduction into global memory (read-modify-write).
// expect k_bulk_reduce: ptr=1,2 reads=1,2 writes=1
extern "C" __global__ void k_bulk_reduce(float* acc, const float* in) {
  __shared__ alignas(128) float buf[256];
  buf[threadIdx.x & 255] = in[blockIdx.x * 256 + (threadIdx.x & 255)];
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;" ::"l"(acc),
                 "r"(smem(buf)), "r"(1024)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group.read 0;");
  }
}
