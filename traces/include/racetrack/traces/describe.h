// Human-readable names and one-line descriptions of trace entities, shared by
// `racetrack dump`, reports and the viewer.
#pragma once

#include <string>
#include <string_view>

#include "racetrack/traces/tables.h"

namespace racetrack {

// Short names of op kinds, as `dump --kind` accepts them.
enum class OpKind {
  kNone, kKernel, kMemcpy, kMemset, kRecord, kWait, kSync, kQuery, kAlloc, kFree,
  kHostFunc, kGraph, kAnnotation, kHostAccess, kCapture
};
inline constexpr int kOpKindCount = 15;

OpKind op_kind(const v1::Op& op);
std::string_view op_kind_name(OpKind kind);
// Inverse of op_kind_name; kNone when the name is unknown.
OpKind op_kind_from_name(std::string_view name);

std::string_view role_name(v1::StreamRole role);
std::string_view flags_name(v1::StreamFlags flags);
std::string_view direction_name(v1::CopyDirection direction);
std::string_view space_name(v1::AddressSpace space);
std::string_view mode_name(v1::AccessMode mode);
std::string_view precision_name(v1::Precision precision);
std::string_view origin_name(v1::RegionOrigin origin);

// The direction a copy really has (COPY_DEFAULT resolved from the spaces).
v1::CopyDirection effective_direction(const v1::Memcpy& copy);

// e.g. "#12 memcpy d2h 1.0 MiB 0x7f00..->0x5000.. async  [offload] thread 1 nvtx fwd/l0"
std::string describe_op(const v1::Op& op, const TraceTables& tables);
// e.g. "kernel gemm" / "memcpy D2H" / "record e_off": the op's short title.
std::string op_title(const v1::Op& op, const TraceTables& tables);

std::string format_bytes(uint64_t bytes);
std::string hex(uint64_t value);

}  // namespace racetrack
