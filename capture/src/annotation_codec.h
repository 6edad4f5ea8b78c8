// The text of racetrack annotations carried by NVTX marks and ranges
// (include/racetrack/annotate.h writes them, capture/python for PyTorch):
//
//   racetrack:kernel <access>...      the next kernel launched on this thread
//   racetrack:host <access>...        the host touches these bytes now
//   racetrack:label 0x<addr>:<bytes> <name>
//   racetrack:op <name> [s=0x<stream>] <access>...
//                                     (a range) kernels launched inside it
//   racetrack:op-out <access>...      (inside an op range) accesses known only
//                                     after the operator returned (its outputs)
//   racetrack:stack <text>            (inside an op range) the host call stack
//   racetrack:block-alloc 0x<addr>:<bytes> [s=0x<stream>]   a framework
//   racetrack:block-free 0x<addr>:<bytes> [s=0x<stream>]    allocator block
//   racetrack:external <agent> <access>... [e=0x<event>]
//                                     an agent outside CUDA streams (RDMA,
//                                     another process) accesses these bytes;
//                                     they are complete at the next record of
//                                     the event, else at racetrack:external-done
//   racetrack:external-done <agent>   the host saw the agent finish
//
// where <access> is <r|w|rw|u>:0x<address>:<bytes> and a stream is the
// cudaStream_t handle (0 = the legacy default stream).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "racetrack/traces/result.h"
#include "racetrack.pb.h"

namespace racetrack::capture {

struct AnnotatedAccess {
  v1::AccessMode mode = v1::MODE_UNKNOWN;
  uint64_t address = 0;
  uint64_t bytes = 0;
};

enum class AnnotationVerb {
  kKernel,
  kHost,
  kLabel,
  kOp,
  kOpOutputs,
  kStack,
  kBlockAlloc,
  kBlockFree,
  kExternal,
  kExternalDone
};

struct ParsedAnnotation {
  AnnotationVerb verb = AnnotationVerb::kKernel;
  std::string name;                       // label text, operator name, stack text or external agent
  std::vector<AnnotatedAccess> accesses;  // for labels and blocks: the one extent
  uint64_t stream = 0;                    // s=0x<handle> of ops and blocks
  uint64_t event = 0;                     // e=0x<handle> of external accesses, 0 = none
};

inline constexpr std::string_view kAnnotationPrefix = "racetrack:";

// nullopt when `message` is not a racetrack annotation (an ordinary NVTX
// range or mark); an error naming the bad item when it is one but malformed.
Result<std::optional<ParsedAnnotation>> parse_annotation(std::string_view message);

}  // namespace racetrack::capture
