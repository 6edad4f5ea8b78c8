// NCCL's kernels named as the collectives they run, from the names CUPTI
// reports (ncclDevKernel_AllReduce_Sum_f32_RING_LL since NCCL 2.19,
// ncclKernel_AllReduce_RING_LL_Sum_float before): docs/distributed.md.
#pragma once

#include <string_view>

namespace racetrack::race {

// "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",
// "SendRecv", ... for an NCCL kernel; "" for any other kernel.
std::string_view collective_of(std::string_view kernel_name);

}  // namespace racetrack::race
