// The bodies of device ops, shared by ops and graph nodes: a kernel from its
// launch (argument words, annotated accesses, the record's name), a copy
// with its direction and the spaces of both ends, a memset.
#pragma once
#include <cstdint>
#include <span>

#include "annotation_codec.h"
#include "api_event.h"
#include "assembler_output.h"
#include "assembler_regions.h"
#include "device_record.h"

namespace racetrack::capture {

// An annotated byte range as an exact access: relative to the live region
// that holds it, else by address.
v1::Access annotated_access(const AnnotatedAccess& a, const RegionTable& regions);

void fill_kernel(v1::Kernel& kernel, const ApiEvent& event, std::span<const uint64_t> words,
                 const KernelRecord* record, std::span<const AnnotatedAccess> accesses, TraceOutput& out,
                 const RegionTable& regions);
// `device` is the device of the copy's stream; `words` the event's payload
// (a pitched shape, copy_shape_words.h).
void fill_memcpy(v1::Memcpy& copy, const ApiEvent& event, std::span<const uint64_t> words,
                 const CopyRecord* record, uint32_t device, const RegionTable& regions);
void fill_memset(v1::Memset& memset, const ApiEvent& event, std::span<const uint64_t> words,
                 const MemsetRecord* record, const RegionTable& regions);

// The space MEMORY2 and copy records give, nullopt for unknown kinds.
std::optional<v1::AddressSpace> space_of_kind(MemoryKind kind);

}  // namespace racetrack::capture
