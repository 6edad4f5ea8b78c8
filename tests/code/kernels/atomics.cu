// Corpus: atomics and reductions (read-modify-writes).

// The result is unused: a reduction (RED).
// expect k_atomic_add_red: ptr=1,2 reads=1,2 writes=1
extern "C" __global__ void k_atomic_add_red(int* counter, const int* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(counter, in[i]);
}

// The result is used: an atomic with a return value (ATOM/ATOMG).
// expect k_atomic_exch_ret: ptr=1,2 reads=1 writes=1,2
extern "C" __global__ void k_atomic_exch_ret(int* slots, int* old_out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) old_out[i] = atomicExch(&slots[i % 8], i);
}

// expect k_atomic_cas_lock: ptr=1,2 reads=1,2 writes=1,2
extern "C" __global__ void k_atomic_cas_lock(int* lock, float* value) {
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *value += 1.0f;
    __threadfence();
    atomicExch(lock, 0);
  }
}

// Shared-memory atomics first, then global ones.
// expect k_histogram: ptr=1,2 reads=1,2 writes=2
extern "C" __global__ void k_histogram(const int* in, unsigned* bins, int n) {
  __shared__ unsigned local[64];
  for (int b = threadIdx.x; b < 64; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[in[i] & 63], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 64; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

// expect k_atomic_max_double: ptr=1,2 reads=1,2 writes=2
extern "C" __global__ void k_atomic_max_double(const unsigned long long* in, unsigned long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMax(out, in[i]);
}

// A float atomic add whose result decides a second store.
// expect k_atomic_ticket: ptr=1,2,3 reads=1,3 writes=1,2
extern "C" __global__ void k_atomic_ticket(unsigned* ticket, float* done, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned t = atomicInc(ticket, 0xffffffffu);
  if (t == (unsigned)n - 1) done[0] = in[i];
}
