// Realistic kernel names (as CUPTI reports them for a bf16 transformer) and
// modelled durations.
#pragma once

#include <cstdint>
#include <string_view>

namespace racetrack::synth::kernels {

inline constexpr const char* kEmbedding =
    "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, "
    "-2, "
    "true>";
inline constexpr const char* kLayerNorm =
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>";
inline constexpr const char* kLayerNormGrad =
    "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, float>";
inline constexpr const char* kGemm =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
    "kernel__5x_cublas";
inline constexpr const char* kGemmDgrad =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_"
    "kernel__5x_cublas";
inline constexpr const char* kGemmWgrad =
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_"
    "kernel__5x_cublas";
inline constexpr const char* kFlashFwd =
    "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t>, "
    "false, true, false, false, true, true, false, false>(flash::Flash_fwd_params)";
inline constexpr const char* kFlashBwd =
    "void flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, "
    "2, "
    "false, false, cutlass::bfloat16_t>, false, true, false, false, false, true>(flash::Flash_bwd_params)";
inline constexpr const char* kAdd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul>)";
inline constexpr const char* kGelu =
    "void at::native::vectorized_elementwise_kernel<4, "
    "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
    "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::"
    "{lambda(c10::BFloat16)#1}, std::array<char*, 2ul> >";
inline constexpr const char* kGeluGrad =
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluBackwardCUDAKernelImpl("
    "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::"
    "operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}, std::array<char*, 3ul> >";
inline constexpr const char* kLoss =
    "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>";
inline constexpr const char* kAdam =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
    "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
    "ADAM_MODE::ADAMW, false>, double*, double, double, double, double, double, bool, float*, float*>";

inline constexpr const char* kL2Norm =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
    "TensorListMetadata<1>, at::native::(anonymous namespace)::L2NormFunctor<float, 1>, float*, float*>";

// Data parallelism (collectives.cpp): NCCL's kernels as CUPTI names them,
// and the copies into and out of a flat gradient bucket.
inline constexpr const char* kAllReduce = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
inline constexpr const char* kAllGather = "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
inline constexpr const char* kBucketCopy =
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::OpaqueType<2u>, "
    "unsigned int, 1, 128, 1>";
inline constexpr const char* kBucketSplit =
    "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
    "TensorListMetadata<2>, at::native::(anonymous namespace)::CopyFunctor<c10::BFloat16, c10::BFloat16, 2, 1, 1>>";

// How each kernel lays out its argument words (Emitter::kernel): the
// pointers it reads through, the pointers it writes through, then
// kScalarWords words that are no pointers. `synth --modes code` stores the
// per-word modes this gives as the kernels' machine-code analysis.
struct Signature {
  const char* name;
  uint32_t reads, writes;
};
inline constexpr uint32_t kScalarWords = 2;
inline constexpr Signature kSignatures[] = {
    {kEmbedding, 2, 1}, {kLayerNorm, 2, 1}, {kLayerNormGrad, 3, 2}, {kGemm, 2, 1},   {kGemmDgrad, 2, 1},
    {kGemmWgrad, 2, 1}, {kFlashFwd, 1, 1},  {kFlashBwd, 2, 1},      {kAdd, 2, 1},    {kGelu, 1, 1},
    {kGeluGrad, 2, 1},  {kLoss, 1, 2},      {kAdam, 6, 6},          {kL2Norm, 1, 1},
    {kAllReduce, 1, 1}, {kAllGather, 1, 1}, {kBucketCopy, 6, 1}, {kBucketSplit, 1, 6},
};

inline const Signature* signature_of(std::string_view name) {
  for (const Signature& s : kSignatures)
    if (name == s.name) return &s;
  return nullptr;
}

// Durations for an activation of `bytes` (8 MiB is a 4k x 1k bf16 tile).
inline int64_t scaled(int64_t ns_at_8mib, uint64_t bytes) {
  return static_cast<int64_t>(static_cast<double>(ns_at_8mib) * static_cast<double>(bytes) / (8 << 20));
}

}  // namespace racetrack::synth::kernels
