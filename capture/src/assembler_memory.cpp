#include "assembler_memory.h"

#include "assembler_ops.h"

namespace racetrack::capture {
namespace {

bool is_device_space(v1::AddressSpace s) {
  return s == v1::SPACE_DEVICE || s == v1::SPACE_MANAGED;
}

// What kind of allocation a MEMORY2 record made inside another call is.
v1::RegionOrigin origin_of(const MemoryRecord& r) {
  if (r.memory_kind == MemoryKind::kPinned) return v1::ORIGIN_HOST_ALLOC;
  if (r.memory_kind == MemoryKind::kPageable) return v1::ORIGIN_HOST_MALLOC;
  if (r.async || r.pool_type != 0) return v1::ORIGIN_POOL_ASYNC;
  return v1::ORIGIN_CUDA_MALLOC;
}

}  // namespace

bool is_memory_call(ApiKind kind) {
  switch (kind) {
    case ApiKind::kMalloc:
    case ApiKind::kFree:
    case ApiKind::kHostAlloc:
    case ApiKind::kHostFree:
    case ApiKind::kHostRegister:
    case ApiKind::kHostUnregister:
    case ApiKind::kMallocAsync:
    case ApiKind::kFreeAsync:
    case ApiKind::kVmmMap:
    case ApiKind::kVmmUnmap:
    case ApiKind::kArrayCreate:
    case ApiKind::kArrayDestroy: return true;
    default: return false;
  }
}

bool is_static(const MemoryRecord& record) {
  return record.memory_kind == MemoryKind::kDeviceStatic || record.memory_kind == MemoryKind::kManagedStatic;
}

v1::Op& MemoryOps::begin_op(const Call& call, uint32_t stream, uint32_t nvtx) {
  const ApiEvent& e = call.event;
  v1::Op& op = out_.begin_op(e.os_tid, e.host_start, e.host_end);
  op.set_stream(stream);
  op.set_correlation_id(e.correlation);
  op.set_nvtx(nvtx);
  return op;
}

void MemoryOps::alloc(const Call& call, v1::AddressSpace space, v1::RegionOrigin origin, uint64_t base,
                      uint64_t bytes, uint32_t device, uint32_t stream, uint32_t nvtx) {
  // cudaMalloc(0) and the like allocate nothing; a wrapping range is garbage.
  if (base == 0 || bytes == 0 || base + bytes < base) return;
  const LiveRegion region =
      regions_.add(space, base, bytes, is_device_space(space) ? device : 0, origin, out_.next_seq());
  v1::Op& op = begin_op(call, stream, nvtx);
  op.mutable_alloc()->set_region(region.id);
  op.mutable_alloc()->set_stream_ordered(stream != 0);
  // cudaMalloc, cudaMallocHost / cudaHostAlloc and cudaHostRegister: calls
  // --assume alloc-syncs=yes makes device-wide joins (rule 6g).
  op.mutable_alloc()->set_device_sync(stream == 0 &&
                                      (origin == v1::ORIGIN_CUDA_MALLOC || origin == v1::ORIGIN_CUDA_ARRAY ||
                                       origin == v1::ORIGIN_HOST_ALLOC ||
                                       (origin == v1::ORIGIN_HOST_MALLOC && space == v1::SPACE_PINNED_HOST)));
  out_.end_op();
}

void MemoryOps::free(const Call& call, const LiveRegion& region, uint32_t stream, bool device_sync,
                     uint32_t nvtx) {
  v1::Op& op = begin_op(call, stream, nvtx);
  v1::Free& f = *op.mutable_free();
  f.set_region(region.id);
  f.set_stream_ordered(stream != 0);
  f.set_device_sync(device_sync);
  out_.end_op();
}

uint64_t MemoryOps::write(const Call& call, uint32_t stream, uint32_t device, uint32_t nvtx) {
  const ApiEvent& e = call.event;
  switch (e.kind) {
    case ApiKind::kMalloc:
      alloc(call, v1::SPACE_DEVICE, v1::ORIGIN_CUDA_MALLOC, e.dst, e.bytes, device, 0, nvtx);
      return 0;
    case ApiKind::kHostAlloc:
      alloc(call, v1::SPACE_PINNED_HOST, v1::ORIGIN_HOST_ALLOC, e.dst, e.bytes, device, 0, nvtx);
      return 0;
    case ApiKind::kHostRegister:
      alloc(call, v1::SPACE_PINNED_HOST, v1::ORIGIN_HOST_MALLOC, e.dst, e.bytes, device, 0, nvtx);
      return 0;
    case ApiKind::kMallocAsync:
      alloc(call, v1::SPACE_DEVICE, v1::ORIGIN_POOL_ASYNC, e.dst, e.bytes, device, stream, nvtx);
      return 0;
    case ApiKind::kVmmMap:
      alloc(call, v1::SPACE_DEVICE, v1::ORIGIN_VMM_MAP, e.dst, e.bytes, device, 0, nvtx);
      return 0;
    case ApiKind::kArrayCreate:
      if (auto layout = arrays_.create(e.handle, call.payload))
        alloc(call, v1::SPACE_DEVICE, v1::ORIGIN_CUDA_ARRAY, layout->base, layout->bytes, device, 0, nvtx);
      return 0;
    case ApiKind::kArrayDestroy: {
      // Read like cudaFree: it may synchronise (rule 6g, assumption free-syncs).
      const auto layout = arrays_.destroy(e.handle);
      const auto region = layout ? regions_.remove_at(layout->base) : std::nullopt;
      if (!region) return e.handle != 0 ? 1 : 0;
      free(call, *region, 0, true, nvtx);
      return 0;
    }
    case ApiKind::kVmmUnmap: {
      const auto unmapped = regions_.remove_inside(e.dst, e.bytes, v1::ORIGIN_VMM_MAP);
      for (const LiveRegion& r : unmapped) free(call, r, 0, false, nvtx);
      return unmapped.empty() ? 1 : 0;
    }
    default: break;
  }
  if (e.dst == 0) return 0;  // cudaFree(NULL) frees nothing
  const auto region = regions_.remove_at(e.dst);
  if (!region) return 1;
  switch (e.kind) {
    // cudaFree "will not perform any implicit synchronization" for pool
    // memory; for all other pointers it "may" (docs/ordering-rules.md, 6g).
    case ApiKind::kFree:
    case ApiKind::kHostFree: free(call, *region, 0, region->origin != v1::ORIGIN_POOL_ASYNC, nvtx); break;
    case ApiKind::kHostUnregister: free(call, *region, 0, false, nvtx); break;
    case ApiKind::kFreeAsync: free(call, *region, stream, false, nvtx); break;
    default: break;
  }
  return 0;
}

void MemoryOps::write_nested(const Call& call, uint32_t nvtx) {
  for (const DeviceRecord& record : call.records) {
    const auto* r = std::get_if<MemoryRecord>(&record);
    if (!r) continue;
    if (!r->release) {
      const v1::AddressSpace space = space_of_kind(r->memory_kind).value_or(v1::SPACE_DEVICE);
      alloc(call, space, origin_of(*r), r->address, r->bytes, r->device, 0, nvtx);
    } else if (auto region = regions_.remove_at(r->address)) {
      free(call, *region, 0, false, nvtx);
    }
  }
}

void MemoryOps::add_static(const MemoryRecord& record) {
  if (record.release || record.bytes == 0 || record.address + record.bytes < record.address) return;
  if (const LiveRegion* same = regions_.exactly(record.address, record.bytes);
      same && same->origin == v1::ORIGIN_STATIC)
    return;  // the module was loaded again in this context
  const v1::AddressSpace space = space_of_kind(record.memory_kind).value_or(v1::SPACE_DEVICE);
  regions_.add(space, record.address, record.bytes, record.device, v1::ORIGIN_STATIC, /*alloc_seq=*/0);
}

}  // namespace racetrack::capture
