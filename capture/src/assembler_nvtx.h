// NVTX for the trace assembler: a range stack per thread (ops carry the
// joined path "outer/inner"), and racetrack annotations carried by marks and
// ranges (annotation_codec.h): accesses for the thread's next launch or for
// every launch inside a "racetrack:op" range, host accesses, buffer labels.
// Other marks become ANNOTATE_MARK ops; a malformed annotation becomes a mark
// that says what is wrong, never an abort.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "annotation_codec.h"
#include "api_event.h"
#include "assembler_output.h"
#include "assembler_regions.h"

namespace racetrack::capture {

// The text of an NVTX push or mark.
std::string nvtx_message(const ApiEvent& event, std::span<const uint64_t> payload);

class NvtxTracker {
 public:
  NvtxTracker(TraceOutput& out, RegionTable& regions) : out_(out), regions_(regions) {}

  // A push, pop or mark, in seq order; `payload` holds the message bytes.
  void on_event(const ApiEvent& event, std::span<const uint64_t> payload);
  // The thread's interned range path, 0 outside every range.
  uint32_t path(uint64_t os_tid);
  // What the thread's next launch touches: the "racetrack:kernel" accesses
  // given since its last launch (consumed) and those of every open
  // "racetrack:op" range.
  std::vector<AnnotatedAccess> take_launch_accesses(uint64_t os_tid);
  // Whether the thread's innermost open range is a "racetrack:op" range
  // (whose op-out and stack marks the assembler looks ahead for).
  bool in_op_range(uint64_t os_tid) const;
  // Framework allocator blocks (block-alloc / block-free marks) need streams
  // and memory ops, which the assembler owns.
  using BlockHandler = std::function<void(const ApiEvent&, const ParsedAnnotation&)>;
  void set_block_handler(BlockHandler handler) { block_handler_ = std::move(handler); }
  // The trace's event id for a cudaEvent_t handle (racetrack:external e=).
  using EventResolver = std::function<uint32_t(uint64_t handle)>;
  void set_event_resolver(EventResolver resolver) { event_resolver_ = std::move(resolver); }

 private:
  struct Range {
    std::string name;
    std::vector<AnnotatedAccess> accesses;
    bool op = false;
  };
  struct ThreadState {
    std::vector<Range> ranges;
    std::vector<AnnotatedAccess> next_launch;
    std::optional<uint32_t> path;  // cached until the stack changes
  };

  void push(const ApiEvent& event, const std::string& text);
  // Applies an annotation that acts at a point (kernel, host, label).
  void apply(const ApiEvent& event, const ParsedAnnotation& annotation);
  void label(const ApiEvent& event, const ParsedAnnotation& annotation);
  void external(const ApiEvent& event, const ParsedAnnotation& annotation);
  v1::Op& begin_op(const ApiEvent& event);
  void write_mark(const ApiEvent& event, const std::string& text);

  TraceOutput& out_;
  RegionTable& regions_;
  std::unordered_map<uint64_t, ThreadState> threads_;
  BlockHandler block_handler_;
  EventResolver event_resolver_;
};

}  // namespace racetrack::capture
