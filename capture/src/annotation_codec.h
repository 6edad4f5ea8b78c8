// The text of racetrack annotations carried by NVTX marks and ranges
// (include/racetrack/annotate.h writes them, capture/python for PyTorch):
//
//   racetrack:kernel <access>...      the next kernel launched on this thread
//   racetrack:host <access>...        the host touches these bytes now
//   racetrack:label 0x<addr>:<bytes> <name>
//   racetrack:op <name> <access>...   (a range) kernels launched inside it
//
// where <access> is <r|w|rw|u>:0x<address>:<bytes>.
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

enum class AnnotationVerb { kKernel, kHost, kLabel, kOp };

struct ParsedAnnotation {
  AnnotationVerb verb = AnnotationVerb::kKernel;
  std::string name;  // label text or operator name
  std::vector<AnnotatedAccess> accesses;
};

inline constexpr std::string_view kAnnotationPrefix = "racetrack:";

// nullopt when `message` is not a racetrack annotation (an ordinary NVTX
// range or mark); an error naming the bad item when it is one but malformed.
Result<std::optional<ParsedAnnotation>> parse_annotation(std::string_view message);

}  // namespace racetrack::capture
