// PyTorch operator ranges ("racetrack:op", written by capture/python): the
// operator's outputs, its stack and the blocks it allocated are marked inside
// the range only after the operator returned, i.e. after its kernels were
// launched. So a launch inside an op range reads the rest of the range ahead
// (up to the range's pop on the same thread) before it is written.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "annotation_codec.h"
#include "assembler_calls.h"

namespace racetrack::capture {

struct OpRangeTail {
  std::vector<AnnotatedAccess> outputs;  // op-out accesses: written by the op's kernels
  std::string stack;                     // the op's host stack, when recorded
  std::vector<Call*> block_allocs;       // block-alloc marks, to apply before the launch
};

// Reads the pending calls after `launch` on its thread up to the pop that
// closes its innermost range; nullopt while that pop has not arrived.
std::optional<OpRangeTail> read_op_range_tail(CallQueue& calls, const Call& launch);

}  // namespace racetrack::capture
