#include "assembler_op_ranges.h"

#include "assembler_nvtx.h"

namespace racetrack::capture {

std::optional<OpRangeTail> read_op_range_tail(CallQueue& calls, const Call& launch) {
  OpRangeTail tail;
  int depth = 0;  // ranges opened after the launch and not yet closed
  auto& pending = calls.pending();
  for (auto it = pending.upper_bound(launch.event.seq); it != pending.end(); ++it) {
    Call& call = it->second;
    const ApiEvent& e = call.event;
    if (e.os_tid != launch.event.os_tid) continue;
    if (e.kind == ApiKind::kNvtxPush) {
      ++depth;
    } else if (e.kind == ApiKind::kNvtxPop) {
      if (depth == 0) return tail;
      --depth;
    } else if (e.kind == ApiKind::kNvtxMark && depth == 0) {
      auto parsed = parse_annotation(nvtx_message(e, call.payload));
      if (!parsed || !*parsed) continue;  // reported when the mark itself is written
      const ParsedAnnotation& a = **parsed;
      if (a.verb == AnnotationVerb::kOpOutputs)
        tail.outputs.insert(tail.outputs.end(), a.accesses.begin(), a.accesses.end());
      else if (a.verb == AnnotationVerb::kStack)
        tail.stack = a.name;
      else if (a.verb == AnnotationVerb::kBlockAlloc && !call.applied)
        tail.block_allocs.push_back(&call);
    }
  }
  return std::nullopt;
}

}  // namespace racetrack::capture
