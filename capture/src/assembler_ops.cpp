#include "assembler_ops.h"

#include <algorithm>

#include "copy_shape_words.h"
#include "racetrack/traces/describe.h"

namespace racetrack::capture {
namespace {

enum class End { kHost, kDevice, kUnknown };

// cudaMemcpyKind: 0 H2H, 1 H2D, 2 D2H, 3 D2D, 4 default.
v1::CopyDirection direction_of_value(uint32_t value) {
  switch (value) {
    case 0: return v1::COPY_H2H;
    case 1: return v1::COPY_H2D;
    case 2: return v1::COPY_D2H;
    case 3: return v1::COPY_D2D;
    default: return v1::COPY_DEFAULT;
  }
}

// CUpti_ActivityMemcpyKind (arrays count as device memory).
v1::CopyDirection direction_of_record(uint8_t kind) {
  switch (kind) {
    case 1:
    case 3: return v1::COPY_H2D;
    case 2:
    case 4: return v1::COPY_D2H;
    case 5:
    case 6:
    case 7:
    case 8: return v1::COPY_D2D;
    case 9: return v1::COPY_H2H;
    case 10: return v1::COPY_P2P;
    default: return v1::COPY_DEFAULT;
  }
}

std::pair<End, End> ends_of(v1::CopyDirection d) {  // {dst, src}
  switch (d) {
    case v1::COPY_H2D: return {End::kDevice, End::kHost};
    case v1::COPY_D2H: return {End::kHost, End::kDevice};
    case v1::COPY_D2D:
    case v1::COPY_P2P: return {End::kDevice, End::kDevice};
    case v1::COPY_H2H: return {End::kHost, End::kHost};
    default: return {End::kUnknown, End::kUnknown};
  }
}

// Without a record, what the live regions say. Device and pinned memory
// come from calls the capturer sees, so an address no region holds on an
// unknown end is pageable host memory.
v1::AddressSpace space_of_end(uint64_t address, uint64_t bytes, End end, MemoryKind kind,
                              const RegionTable& regions) {
  if (auto known = space_of_kind(kind)) return *known;
  const LiveRegion* region = regions.containing(address, std::max<uint64_t>(bytes, 1));
  switch (end) {
    case End::kHost:
      return region && region->space == v1::SPACE_PINNED_HOST ? v1::SPACE_PINNED_HOST
                                                              : v1::SPACE_PAGEABLE_HOST;
    case End::kDevice:
      return region && region->space == v1::SPACE_MANAGED ? v1::SPACE_MANAGED : v1::SPACE_DEVICE;
    case End::kUnknown: break;
  }
  return region ? region->space : v1::SPACE_PAGEABLE_HOST;
}

// A garbage size must not make a range wrap (the trace would be invalid).
uint64_t bytes_within_address_space(uint64_t bytes, uint64_t a, uint64_t b = 0) {
  return std::min(bytes, UINT64_MAX - std::max(a, b));
}

}  // namespace

std::optional<v1::AddressSpace> space_of_kind(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kPageable: return v1::SPACE_PAGEABLE_HOST;
    case MemoryKind::kPinned: return v1::SPACE_PINNED_HOST;
    case MemoryKind::kDevice:
    case MemoryKind::kArray:
    case MemoryKind::kDeviceStatic: return v1::SPACE_DEVICE;
    case MemoryKind::kManaged:
    case MemoryKind::kManagedStatic: return v1::SPACE_MANAGED;
    case MemoryKind::kUnknown: break;
  }
  return std::nullopt;
}

v1::Access annotated_access(const AnnotatedAccess& a, const RegionTable& regions) {
  v1::Access out;
  if (const LiveRegion* region = regions.containing(a.address, a.bytes)) {
    out.set_region(region->id);
    out.set_offset(a.address - region->base);
  } else {
    out.set_address(a.address);
  }
  out.set_size(a.bytes);
  out.set_mode(a.mode);
  out.set_precision(v1::PRECISION_EXACT);
  return out;
}

void fill_kernel(v1::Kernel& kernel, const ApiEvent& event, std::span<const uint64_t> words,
                 const KernelRecord* record, std::span<const AnnotatedAccess> accesses, TraceOutput& out,
                 const RegionTable& regions) {
  const bool named = record && !record->name.empty();
  kernel.set_name(out.intern(named ? record->name : "kernel@" + hex(event.handle)));
  const bool dims_known = event.grid[0] != 0;
  for (int i = 0; i < 3; ++i) {
    kernel.add_grid(dims_known || !record ? event.grid[i] : record->grid[i]);
    kernel.add_block(dims_known || !record ? event.block[i] : record->block[i]);
  }
  kernel.mutable_arg_words()->Add(words.begin(), words.end());
  kernel.set_programmatic_stream_serialization((event.flags & kFlagProgrammatic) != 0);
  for (const AnnotatedAccess& a : accesses) *kernel.add_accesses() = annotated_access(a, regions);
}

// A 2D / 3D shape from the payload words (copy_shape_words.h).
void fill_pitched(v1::Pitched& pitched, const ApiEvent& event, std::span<const uint64_t> words, bool copy) {
  if (!(event.flags & kFlagPitched) || words.size() < kPitchedWords) return;
  pitched.set_width(words[kWidth]);
  pitched.set_height(words[kHeight]);
  pitched.set_depth(words[kDepth] > 1 ? words[kDepth] : 0);
  pitched.set_dst_pitch(words[kDstPitch]);
  pitched.set_dst_slice_pitch(words[kDstSlicePitch]);
  if (!copy) return;
  pitched.set_src_pitch(words[kSrcPitch]);
  pitched.set_src_slice_pitch(words[kSrcSlicePitch]);
}

void fill_memcpy(v1::Memcpy& copy, const ApiEvent& event, std::span<const uint64_t> words,
                 const CopyRecord* record, uint32_t device, const RegionTable& regions) {
  v1::CopyDirection direction = direction_of_value(event.value);
  if (record && direction_of_record(record->copy_kind) != v1::COPY_DEFAULT)
    direction = direction_of_record(record->copy_kind);
  const uint64_t bytes = bytes_within_address_space(event.bytes ? event.bytes
                                                    : record    ? record->bytes
                                                                : 0,
                                                    event.dst, event.src);
  const auto [dst_end, src_end] = ends_of(direction);
  copy.set_dst(event.dst);
  copy.set_src(event.src);
  copy.set_bytes(bytes);
  copy.set_direction(direction);
  copy.set_dst_space(
      space_of_end(event.dst, bytes, dst_end, record ? record->dst_kind : MemoryKind::kUnknown, regions));
  copy.set_src_space(
      space_of_end(event.src, bytes, src_end, record ? record->src_kind : MemoryKind::kUnknown, regions));
  copy.set_async(event.flags & kFlagAsync);
  const bool peer = record && record->peer;
  copy.set_dst_device(peer ? record->dst_device : device);
  copy.set_src_device(peer ? record->src_device : device);
  if (event.flags & kFlagPitched) fill_pitched(*copy.mutable_pitched(), event, words, true);
  // A symbol side stays unknown unless the nested driver copy named it.
  copy.set_dst_unknown((event.flags & kFlagDstUnknown) && event.dst == 0);
  copy.set_src_unknown((event.flags & kFlagSrcUnknown) && event.src == 0);
}

void fill_memset(v1::Memset& memset, const ApiEvent& event, std::span<const uint64_t> words,
                 const MemsetRecord* record, const RegionTable& regions) {
  const uint64_t bytes = bytes_within_address_space(event.bytes ? event.bytes
                                                    : record    ? record->bytes
                                                                : 0,
                                                    event.dst);
  memset.set_dst(event.dst);
  memset.set_bytes(bytes);
  memset.set_value(event.value);
  // Memsets write device memory unless the record or a region says otherwise.
  auto space = space_of_kind(record ? record->memory_kind : MemoryKind::kUnknown);
  const LiveRegion* region = regions.containing(event.dst, std::max<uint64_t>(bytes, 1));
  memset.set_space(space ? *space : region ? region->space : v1::SPACE_DEVICE);
  memset.set_async(event.flags & kFlagAsync);
  if (event.element_size > 1) memset.set_element_size(event.element_size);
  if (event.flags & kFlagPitched) fill_pitched(*memset.mutable_pitched(), event, words, false);
}

}  // namespace racetrack::capture
