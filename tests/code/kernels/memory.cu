// Corpus: shared-memory staging, local memory, async copies, module globals.
#include <cuda_pipeline.h>

// expect k_shared_reverse: ptr=1,2 reads=2 writes=1
extern "C" __global__ void k_shared_reverse(float* out, const float* in, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = tile[blockDim.x - 1 - threadIdx.x];
}

// expect k_block_reduce: ptr=1,2 reads=1 writes=2
extern "C" __global__ void k_block_reduce(const float* in, float* out, int n) {
  __shared__ float partial[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

// expect k_matmul_tiled: ptr=1,2,3 reads=1,2 writes=3
extern "C" __global__ void k_matmul_tiled(const float* A, const float* B, float* C, int n) {
  __shared__ float As[16][16], Bs[16][16];
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n; t += 16) {
    As[threadIdx.y][threadIdx.x] = A[row * n + t + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// A local array of pointers indexed at run time forces local memory.
// expect k_local_pointer_array: ptr=1,2,3 reads=3 writes=1,2
extern "C" __global__ void k_local_pointer_array(float* a, float* b, const float* in, int n) {
  float* targets[2] = {a, b};
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  volatile int pick = i & 1;  // volatile: keep the indexed local array
  if (i < n) targets[pick][i] = in[i];
}

// cp.async (global to shared, LDGSTS on sm_80+).
// expect k_cp_async: ptr=1,2 reads=2 writes=1
extern "C" __global__ void k_cp_async(float* out, const float* in, int n) {
  __shared__ float stage[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) __pipeline_memcpy_async(&stage[threadIdx.x], &in[i], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  if (i < n) out[i] = stage[threadIdx.x] * 2.0f;
}

// A module global: reached through no parameter word.
__device__ float g_accumulator;
// expect k_device_global: ptr=1 reads=1 indirect
extern "C" __global__ void k_device_global(const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&g_accumulator, in[i]);
}

// A __constant__ table read, a parameter written.
__constant__ float c_table[16];
// expect k_constant_table: ptr=1 writes=1
extern "C" __global__ void k_constant_table(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = c_table[i & 15];
}

// Generic pointers that may be shared or global: the callee cannot tell.
__device__ __noinline__ void bump(float* p) { *p += 1.0f; }
// expect k_generic_mixed: ptr=1 reads=1 writes=1
extern "C" __global__ void k_generic_mixed(float* g, int n) {
  __shared__ float s[32];
  if (threadIdx.x < 32) s[threadIdx.x] = 0.0f;
  __syncthreads();
  float* p = (threadIdx.x & 1) ? &s[threadIdx.x & 31] : &g[threadIdx.x];
  if ((int)threadIdx.x < n) bump(p);
}
