// Corpus: pointers inside structs passed by value (TensorIterator-style).
#include <cstdint>

struct InOut {
  const float* in;
  float* out;
  int n;
};
// expect k_struct_args: ptr=1,2 reads=1 writes=2
extern "C" __global__ void k_struct_args(InOut a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a.n) a.out[i] = a.in[i] + 1.0f;
}

// Like PyTorch's TensorIterator kernels: a data-pointer array and an offset
// calculator (sizes and strides per dimension) passed by value.
constexpr int kDims = 3;
struct OffsetCalculator {
  int dims;
  uint32_t sizes[kDims];
  uint32_t strides[kDims][3];
};
struct TensorIterLaunch {
  char* data[3];  // words 1..3: output, input a, input b
  OffsetCalculator calc;
  int64_t numel;
};
// expect k_tensor_iter: ptr=1,2,3 reads=2,3 writes=1
extern "C" __global__ void k_tensor_iter(TensorIterLaunch p) {
  int64_t linear = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (linear >= p.numel) return;
  uint32_t off[3] = {0, 0, 0};
  uint32_t rem = (uint32_t)linear;
#pragma unroll
  for (int d = 0; d < kDims; ++d) {
    if (d == p.calc.dims) break;
    uint32_t q = rem / p.calc.sizes[d];
    uint32_t r = rem - q * p.calc.sizes[d];
    rem = q;
#pragma unroll
    for (int t = 0; t < 3; ++t) off[t] += r * p.calc.strides[d][t];
  }
  float a = *reinterpret_cast<const float*>(p.data[1] + off[1]);
  float b = *reinterpret_cast<const float*>(p.data[2] + off[2]);
  *reinterpret_cast<float*>(p.data[0] + off[0]) = a * b;
}

// An array of pointers inside the struct, indexed at run time: any of the
// four may be written.
struct PtrArray {
  float* ptrs[4];
  int n;
};
// expect k_ptr_array_dynamic: ptr=1,2,3,4 reads=1,2,3,4 writes=1,2,3,4
extern "C" __global__ void k_ptr_array_dynamic(PtrArray a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a.n) a.ptrs[blockIdx.y & 3][i] += 1.0f;
}

// A struct whose first word is a size and whose pointers follow.
struct Mixed {
  int64_t count;
  const int* src;
  int* dst;
  int* unused;
};
// expect k_struct_mixed: ptr=2,3,4 reads=2 writes=3
extern "C" __global__ void k_struct_mixed(Mixed m) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < m.count) m.dst[i] = m.src[i] * 3;
}

// Two separate struct parameters, the second after a scalar.
struct Vec {
  float* data;
  int64_t stride;
};
// expect k_two_structs: ptr=1,4 reads=4 writes=1
extern "C" __global__ void k_two_structs(Vec out, int n, Vec in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out.data[i * out.stride] = in.data[i * in.stride];
}
