// A hazard: two accesses to overlapping bytes, at least one a write, whose
// ops are not ordered by happens-before (docs/design.md §6, docs/check.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "racetrack/hb/pdl.h"
#include "racetrack/race/access.h"
#include "racetrack/traces/describe.h"

namespace racetrack::race {

enum class HazardKind { kRaw, kWar, kWaw };
// kCommunication: one side runs on a communication stream (a collective or
// its bucket copies), the other is not a host access.
enum class HazardClass { kCopyVsCompute, kCopyVsCopy, kComputeVsCompute, kHostVsDevice, kReuse, kCommunication };
// Ordered: a higher value is more certain.
enum class Confidence { kPossible, kLikely, kDefinite };
// The CUDA graph lifetime shapes (C16, graph_lifetimes.h): a graph node's
// captured address freed since capture, a graph-pool intermediate whose
// memory another allocation uses, side-stream work left out of a capture.
enum class GraphLifetime : uint8_t { kNone, kCapturedFreed, kPoolAlias, kUnjoinedCapture };

// Names for people ("RAW") and the lowercase identifiers of JSON ("raw");
// class and confidence names are both.
std::string_view kind_name(HazardKind kind);
std::string_view kind_id(HazardKind kind);
std::string_view class_name(HazardClass cls);
std::string_view confidence_name(Confidence c);
// Accepts "definite", "likely", "possible".
bool parse_confidence(std::string_view text, Confidence& out);

// One side of a hazard: the op and the access that conflicts.
struct HazardSide {
  uint64_t seq = 0;
  OpKind op_kind = OpKind::kNone;
  uint32_t name = 0;    // kernel / host function name string id
  uint32_t stream = 0;  // 0: a host op
  uint32_t thread = 0;
  uint32_t nvtx = 0;
  uint32_t stack = 0;  // host call stack string id, when captured
  uint32_t agent = 0;  // happens-before agent (stream or thread)
  ResolvedAccess access;
  v1::CopyDirection direction = v1::COPY_DEFAULT;  // copies
  uint32_t region_label = 0;
  // For grouping: the checker's id of the NVTX path with digits stripped
  // (set in reported hazards only), and the stream's role + 1 (0 for host
  // ops).
  uint32_t nvtx_pattern = 0;
  uint32_t role = 0;
  // Graph launches and capture ends (C16): which shape, the label of the
  // region the address had at capture time, the label of its owner now, and
  // the seq of the capture end (for kUnjoinedCapture: of the op not joined).
  GraphLifetime graph_lifetime = GraphLifetime::kNone;
  uint32_t captured_label = 0;
  uint32_t owner_label = 0;
  uint64_t captured_seq = 0;
  // An agent outside CUDA streams (C14, external_agents.h): the string id of
  // its name, the seq of the annotation that declared the access, and the
  // event whose record observed its completion (0: none yet or a host point).
  uint32_t external_agent = 0;
  uint64_t external_seq = 0;
  uint32_t external_event = 0;
};

// Identity of a hazard for comparisons and tests.
struct HazardKey {
  uint64_t first_seq, second_seq;
  uint32_t first_access, second_access;
  uint32_t first_node, second_node;
  auto operator<=>(const HazardKey&) const = default;
};

// What a hazard's confidence rests on, ordered by weight: the confidence,
// then a pointer of the imprecise side inside the other side's exact bytes
// (anchored), then the coarser of the two extents (exact < block < inferred
// < segment).
struct Evidence {
  Confidence confidence = Confidence::kPossible;
  bool anchored = false;
  v1::Precision extent = v1::PRECISION_SEGMENT;
};
// Whether `a` weighs more than `b` (docs/check.md, "Confidence").
bool stronger(const Evidence& a, const Evidence& b);
// 0 (exact) .. 3 (segment): how coarse an extent is.
int coarseness(v1::Precision p);

struct Hazard {
  HazardSide first, second;  // first was submitted first
  HazardKind kind = HazardKind::kRaw;
  HazardClass cls = HazardClass::kComputeVsCompute;
  Confidence confidence = Confidence::kDefinite;
  bool anchored = false;  // Evidence::anchored
  SpaceKey space = 0;
  uint64_t lo = 0, hi = 0;  // the overlapping bytes (hull)
  // The last op of the first side's agent that the second op is ordered
  // after, as a tick of that agent (0: none); explain() turns it into a seq.
  uint64_t ordered_up_to_tick = 0;
  uint64_t ordered_up_to_seq = 0;
  std::string ordered_up_to_title;
  // An event the program already records right after the first op, still
  // current when the second op was submitted: the fix waits on it (0: none).
  uint32_t event_after_first = 0;
  // The second op is a PDL secondary kernel that may overlap the first, a
  // kernel ahead of it on its stream (docs/ordering-rules.md rule 1a), and
  // what the second's machine code says about its grid-dependency wait.
  bool pdl = false;
  hb::PdlWait pdl_wait = hb::PdlWait::kUnknown;
  // The second op's agent waited on the first op's programmatic event
  // (docs/ordering-rules.md rule 5a), which does not wait for the kernel to
  // complete: that wait, when `programmatic.wait_seq` is set.
  hb::ProgrammaticWait programmatic{};
  // The streams that wrote the second side's region before the second op
  // (explains a wait on one producer of several, wrong_wait.h); set on the
  // hazards check shows or may explain, when it explains them.
  std::vector<uint32_t> second_region_writers;
  // Index of its group in CheckResult::groups (the viewer lists instances
  // under their group).
  uint32_t group = 0;

  HazardKey key() const {
    return {first.seq,           second.seq,        first.access.index,
            second.access.index, first.access.node, second.access.node};
  }
};

// A hazard's number, as check ([N] and "number"), the viewer
// (--select-hazard N), sim and replay show it: its group's position among
// all groups, in order of first occurrence. Groups that are not shown keep
// theirs, so numbers do not change with --min-confidence or --suppress.
inline uint32_t hazard_number(const Hazard& h) {
  return h.group + 1;
}

// "kernel gemm", "memcpy D2H", "hostaccess": a side's title, in full.
std::string side_title(const HazardSide& side, const TraceTables& tables);

// Kind and confidence follow from the two accesses (docs/design.md §6,
// docs/check.md "Confidence").
HazardKind hazard_kind(const ResolvedAccess& first, const ResolvedAccess& second);
// Whether one access is imprecise and one of its pointers lies in the exact
// bytes of the other, or both were built from one same pointer.
bool anchored(const ResolvedAccess& first, const ResolvedAccess& second);
Evidence hazard_evidence(const ResolvedAccess& first, const ResolvedAccess& second);
inline Confidence hazard_confidence(const ResolvedAccess& first, const ResolvedAccess& second) {
  return hazard_evidence(first, second).confidence;
}

}  // namespace racetrack::race
