// Corpus for the machine-code access-mode analysis: plain pointer kernels.
// Each kernel carries its true modes on an `// expect NAME:` line (see
// tests/code/corpus_truth.h): ptr= the words that hold pointers, reads= and
// writes= the words read or written through (1-based 8-byte parameter words),
// pdl / indirect for a grid-dependency wait and for memory reached through
// pointers that no parameter word gives.

// expect k_copy: ptr=1,2 reads=2 writes=1
extern "C" __global__ void k_copy(float* dst, const float* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}

// Word 1 holds the float `a` (and padding), words 2 and 3 the pointers.
// expect k_axpy: ptr=2,3 reads=2,3 writes=3
extern "C" __global__ void k_axpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

// expect k_unused_input: ptr=1,2 writes=1
extern "C" __global__ void k_unused_input(float* out, const float* unused, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}

// expect k_fill: ptr=1 writes=1
extern "C" __global__ void k_fill(float* out, float v, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) out[i] = v;
}

// expect k_scale_inplace: ptr=1 reads=1 writes=1
extern "C" __global__ void k_scale_inplace(double* data, double s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= s;
}

// expect k_read_only_sum: ptr=1,2 reads=1,2 writes=2
extern "C" __global__ void k_read_only_sum(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, in[i]);
}

// expect k_float4: ptr=1,2 reads=2 writes=1
extern "C" __global__ void k_float4(float4* dst, const float4* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = src[i];
    v.x += 1.0f;
    dst[i] = v;
  }
}

// expect k_predicated_store: ptr=1,2,3 reads=2,3 writes=1
extern "C" __global__ void k_predicated_store(float* out, const float* in, const int* mask, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && mask[i]) out[i] = in[i];
}

// expect k_grid_stride: ptr=1,2 reads=2 writes=1
extern "C" __global__ void k_grid_stride(float* out, const float* in, int n, int stride) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = in[i] * 2.0f;
}

// Offsets as 64-bit words of their own: the pointers are words 1 and 2.
// expect k_offsets: ptr=1,2 reads=2 writes=1
extern "C" __global__ void k_offsets(float* out, const float* in, long in_off, long out_off, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[out_off + i] = in[in_off + i];
}

// Which pointer is written is chosen at run time: both may be.
// expect k_select_pointer: ptr=1,2,3 reads=3 writes=1,2
extern "C" __global__ void k_select_pointer(float* a, float* b, const float* in, int n, int which) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float* p = which ? a : b;
  if (i < n) p[i] = in[i];
}

// expect k_gather: ptr=1,2,3 reads=2,3 writes=1
extern "C" __global__ void k_gather(float* out, const float* table, const long* index, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = table[index[i]];
}

// expect k_scatter_add: ptr=1,2,3 reads=1,2,3 writes=1
extern "C" __global__ void k_scatter_add(float* out, const float* src, const int* index, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&out[index[i]], src[i]);
}

// expect k_bytes: ptr=1,2 reads=2 writes=1
extern "C" __global__ void k_bytes(unsigned char* dst, const unsigned char* src, unsigned long n) {
  for (unsigned long i = threadIdx.x; i < n; i += blockDim.x) dst[i] = src[n - 1 - i];
}

// expect k_half2: ptr=1,2,3 reads=2,3 writes=1
extern "C" __global__ void k_half2(unsigned* out, const unsigned* a, const unsigned* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __vadd2(a[i], b[i]);
}

// A C++ kernel (mangled name), templated.
template <typename T>
__global__ void k_template_copy(T* dst, const T* src, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}
// expect _Z15k_template_copyIdEvPT_PKS0_i: ptr=1,2 reads=2 writes=1
template __global__ void k_template_copy<double>(double*, const double*, int);
