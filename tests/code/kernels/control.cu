// Corpus: loops, calls, pointer chasing, pointers stored to memory, PDL.

// expect k_pointer_chase_read: ptr=1,2 reads=1 writes=2 indirect
extern "C" __global__ void k_pointer_chase_read(float* const* ptrs, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = *ptrs[i];
}

// expect k_pointer_chase_write: ptr=1,2 reads=1,2 indirect
extern "C" __global__ void k_pointer_chase_write(float* const* ptrs, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) *ptrs[i] = in[i];
}

// A linked list walk: every hop is a loaded pointer.
struct Node {
  Node* next;
  float value;
};
// expect k_list_walk: ptr=1,2 reads=1 writes=2 indirect
extern "C" __global__ void k_list_walk(const Node* head, float* out) {
  float sum = 0.0f;
  for (const Node* p = head; p; p = p->next) sum += p->value;
  if (threadIdx.x == 0) *out = sum;
}

// The kernel stores a pointer parameter into memory: word 2 escapes.
// expect k_store_pointer: ptr=1,2 writes=1
extern "C" __global__ void k_store_pointer(float** slot, float* p) {
  if (threadIdx.x == 0) *slot = p + blockIdx.x;
}

__device__ __noinline__ void store_value(float* p, float v) { *p = v; }
__device__ __noinline__ float load_value(const float* p) { return *p; }
// expect k_noinline_call: ptr=1,2 reads=2 writes=1
extern "C" __global__ void k_noinline_call(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) store_value(&out[i], load_value(&in[i]) + 1.0f);
}

__device__ __noinline__ int depth_sum(const int* p, int d) { return d == 0 ? *p : p[d] + depth_sum(p, d - 1); }
// expect k_recursive_call: ptr=1,2 reads=1 writes=2
extern "C" __global__ void k_recursive_call(const int* in, int* out, int depth) {
  out[threadIdx.x] = depth_sum(in, depth);
}

// Nested loops with a pointer advanced in the loop.
// expect k_pointer_bump_loop: ptr=1,2 reads=2 writes=1
extern "C" __global__ void k_pointer_bump_loop(float* out, const float* in, int rows, int cols) {
  const float* row = in + blockIdx.x * (long)cols;
  float* dst = out + blockIdx.x * (long)cols;
  for (int r = 0; r < rows; ++r) {
    for (int c = threadIdx.x; c < cols; c += blockDim.x) dst[c] = row[c];
    row += cols * gridDim.x;
    dst += cols * gridDim.x;
  }
}

// expect k_pdl_wait: ptr=1,2 reads=2 writes=1 pdl
extern "C" __global__ void k_pdl_wait(float* out, const float* in, int n) {
#if __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// Triggers its dependents but never waits itself.
// expect k_pdl_trigger_only: ptr=1,2 reads=2 writes=1
extern "C" __global__ void k_pdl_trigger_only(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
#if __CUDA_ARCH__ >= 900
  cudaTriggerProgrammaticLaunchCompletion();
#endif
}

// Reads its weights before the wait (allowed: they are not produced by the
// previous kernel), then waits, then reads the activations.
// expect k_pdl_wait_late: ptr=1,2,3 reads=2,3 writes=1 pdl
extern "C" __global__ void k_pdl_wait_late(float* out, const float* act, const float* weight, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float w = i < n ? weight[i] : 0.0f;
#if __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
  if (i < n) out[i] = act[i] * w;
}

// A switch on a run-time value.
// expect k_switch: ptr=1,2,3 reads=2,3 writes=1
extern "C" __global__ void k_switch(float* out, const float* a, const float* b, int op, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  switch (op) {
    case 0: out[i] = a[i] + b[i]; break;
    case 1: out[i] = a[i] - b[i]; break;
    case 2: out[i] = a[i] * b[i]; break;
    case 3: out[i] = a[i] / b[i]; break;
    case 4: out[i] = a[i]; break;
    default: out[i] = b[i]; break;
  }
}
