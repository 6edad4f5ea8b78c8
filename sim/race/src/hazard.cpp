#include "racetrack/race/hazard.h"

#include <algorithm>

namespace racetrack::race {

std::string_view kind_name(HazardKind kind) {
  switch (kind) {
    case HazardKind::kRaw: return "RAW";
    case HazardKind::kWar: return "WAR";
    default: return "WAW";
  }
}

std::string_view kind_id(HazardKind kind) {
  switch (kind) {
    case HazardKind::kRaw: return "raw";
    case HazardKind::kWar: return "war";
    default: return "waw";
  }
}

std::string_view class_name(HazardClass cls) {
  switch (cls) {
    case HazardClass::kCopyVsCompute: return "copy-vs-compute";
    case HazardClass::kCopyVsCopy: return "copy-vs-copy";
    case HazardClass::kComputeVsCompute: return "compute-vs-compute";
    case HazardClass::kHostVsDevice: return "host-vs-device";
    case HazardClass::kCommunication: return "communication";
    default: return "reuse";
  }
}

std::string_view confidence_name(Confidence c) {
  switch (c) {
    case Confidence::kPossible: return "possible";
    case Confidence::kLikely: return "likely";
    default: return "definite";
  }
}

bool parse_confidence(std::string_view text, Confidence& out) {
  for (Confidence c : {Confidence::kPossible, Confidence::kLikely, Confidence::kDefinite})
    if (confidence_name(c) == text) {
      out = c;
      return true;
    }
  return false;
}

std::string side_title(const HazardSide& s, const TraceTables& t) {
  if (s.op_kind == OpKind::kMemcpy) return "memcpy " + std::string(direction_name(s.direction));
  if (s.name) return std::string(op_kind_name(s.op_kind)) + " " + std::string(t.string(s.name));
  return std::string(op_kind_name(s.op_kind));
}

HazardKind hazard_kind(const ResolvedAccess& first, const ResolvedAccess& second) {
  // A known write is a write; an unknown mode counts as what makes the pair
  // conflict, preferring the reading interpretation for the first side.
  const bool first_writes = first.writes && (first.mode_known || !second.writes);
  if (first_writes && second.writes) return HazardKind::kWaw;
  return first_writes ? HazardKind::kRaw : HazardKind::kWar;
}

int coarseness(v1::Precision p) {
  switch (p) {
    case v1::PRECISION_EXACT: return 0;
    case v1::PRECISION_BLOCK: return 1;
    case v1::PRECISION_INFERRED: return 2;
    default: return 3;
  }
}

bool stronger(const Evidence& a, const Evidence& b) {
  if (a.confidence != b.confidence) return a.confidence > b.confidence;
  if (a.anchored != b.anchored) return a.anchored;
  return coarseness(a.extent) < coarseness(b.extent);
}

bool anchored(const ResolvedAccess& first, const ResolvedAccess& second) {
  auto points_into = [](const ResolvedAccess& imprecise, const ResolvedAccess& exact) {
    auto inside = [&](uint64_t p) { return exact.lo <= p && p < exact.hi; };
    return imprecise.has_anchor && imprecise.precision != v1::PRECISION_EXACT &&
           exact.precision == v1::PRECISION_EXACT && imprecise.space == exact.space &&
           (inside(imprecise.anchor_lo) || inside(imprecise.anchor_hi));
  };
  // Two kernels handed the same pointer, one writing through it by its
  // machine code: both touch the bytes it points at, whatever each block.
  auto same_pointer = [](const ResolvedAccess& a, const ResolvedAccess& b) {
    return a.has_anchor && b.has_anchor && a.space == b.space &&
           (a.anchor_lo == b.anchor_lo || a.anchor_lo == b.anchor_hi || a.anchor_hi == b.anchor_lo ||
            a.anchor_hi == b.anchor_hi);
  };
  // A pointer whose inferred block reaches over a seam, against an exact
  // range from that seam on inside the block: the two halves of one tensor
  // (docs/check.md, "Extents from pointers").
  auto across_seam = [](const ResolvedAccess& imprecise, const ResolvedAccess& exact) {
    return imprecise.first_seam && exact.precision == v1::PRECISION_EXACT && imprecise.space == exact.space &&
           imprecise.first_seam <= exact.lo && exact.hi <= imprecise.hi;
  };
  return points_into(first, second) || points_into(second, first) || same_pointer(first, second) ||
         across_seam(first, second) || across_seam(second, first);
}

Evidence hazard_evidence(const ResolvedAccess& first, const ResolvedAccess& second) {
  Evidence e;
  e.extent = coarseness(first.precision) > coarseness(second.precision) ? first.precision : second.precision;
  e.anchored = anchored(first, second);
  // The conflict needs an unknown mode to be a write unless one side is a
  // known writer.
  const bool known_writer = (first.writes && first.mode_known) || (second.writes && second.mode_known);
  if (!known_writer)
    e.confidence = Confidence::kPossible;
  else if (e.extent == v1::PRECISION_EXACT)
    e.confidence = Confidence::kDefinite;
  else if (e.extent == v1::PRECISION_BLOCK || e.anchored)
    e.confidence = Confidence::kLikely;
  else
    e.confidence = Confidence::kPossible;
  return e;
}

}  // namespace racetrack::race
