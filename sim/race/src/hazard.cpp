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

Confidence hazard_confidence(const ResolvedAccess& first, const ResolvedAccess& second) {
  // The conflict needs an unknown mode to be a write unless one side is a
  // known writer.
  const bool known_writer = (first.writes && first.mode_known) || (second.writes && second.mode_known);
  if (!known_writer) return Confidence::kPossible;
  const v1::Precision worst = std::max(first.precision, second.precision);
  if (worst == v1::PRECISION_SEGMENT) return Confidence::kPossible;
  return worst == v1::PRECISION_BLOCK ? Confidence::kLikely : Confidence::kDefinite;
}

}  // namespace racetrack::race
