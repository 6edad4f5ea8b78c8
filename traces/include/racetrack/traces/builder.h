// A C++ API that writes traces the way the modelled program reads:
//
//   TraceBuilder b;
//   auto compute = b.stream("compute", v1::ROLE_COMPUTE);
//   auto d2h = b.stream("offload", v1::ROLE_D2H, v1::STREAM_NON_BLOCKING);
//   auto x = b.device_buffer("X", 4096);
//   auto p = b.pinned_buffer("P", 4096);
//   auto e = b.event("e_off");
//   b.kernel(compute, "fwd", {}, {x});
//   b.record(e, compute); b.wait(d2h, e);
//   b.memcpy(d2h, p, x);
//   v1::Chunk trace = b.take();
//
// It assigns seq, ids, addresses and host times. Given a TraceWriter it
// streams: entities and ops go to the writer's pending chunk, which is
// written whenever it fills, so memory stays bounded.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "racetrack/traces/container.h"

namespace racetrack {

struct StreamId { uint32_t id = 0; };
struct EventId { uint32_t id = 0; };
struct ThreadId { uint32_t id = 0; };

// A byte range of a region: what an op reads or writes.
struct Span {
  uint32_t region = 0;
  uint64_t offset = 0;   // from the region's base
  uint64_t address = 0;  // absolute start
  uint64_t size = 0;
  v1::AddressSpace space = v1::SPACE_DEVICE;
};

// A region handle; converts to the Span covering all of it.
struct Buffer {
  uint32_t region = 0;
  uint64_t base = 0;
  uint64_t size = 0;
  v1::AddressSpace space = v1::SPACE_DEVICE;

  operator Span() const { return Span{region, 0, base, size, space}; }
  Span slice(uint64_t offset, uint64_t bytes) const {
    return Span{region, offset, base + offset, bytes, space};
  }
};

struct KernelOptions {
  v1::Precision precision = v1::PRECISION_EXACT;
  bool known_modes = true;  // false: accesses become MODE_UNKNOWN
  bool raw_words_only = false;  // true: only argument words, no accesses
  int64_t duration_ns = 0;  // >0: device times are set
  std::vector<uint64_t> scalars{};  // non-pointer argument words, appended
};

class TraceBuilder {
 public:
  TraceBuilder();
  // Streams into `writer` (which must outlive the builder).
  explicit TraceBuilder(TraceWriter& writer);

  v1::Header& header();

  uint32_t intern(std::string_view text);
  StreamId stream(std::string_view name, v1::StreamRole role,
                  v1::StreamFlags flags = v1::STREAM_NON_BLOCKING, int32_t priority = 0);
  // The legacy default (NULL) stream.
  StreamId legacy_stream();
  EventId event(std::string_view name);
  ThreadId thread(std::string_view name);
  // Subsequent ops are issued by this host thread (the first thread is
  // created on demand and is the default).
  void on_thread(ThreadId thread);

  // Regions that live from the start of the trace (no alloc op).
  Buffer device_buffer(std::string_view label, uint64_t size);
  Buffer pinned_buffer(std::string_view label, uint64_t size);
  Buffer pageable_buffer(std::string_view label, uint64_t size);
  // A region with an explicit ALLOC op; `at` reuses another region's address.
  Buffer alloc(std::string_view label, uint64_t size, v1::RegionOrigin origin,
               StreamId stream = {}, const Buffer* at = nullptr);
  // The same at an explicit base address (a block carved from a segment).
  Buffer alloc_at(std::string_view label, uint64_t size, v1::RegionOrigin origin, StreamId stream,
                  uint64_t base);
  void free(const Buffer& buffer, StreamId stream = {});
  // cudaFree / cudaFreeHost: a device-wide synchronisation.
  void cuda_free(const Buffer& buffer);

  void kernel(StreamId s, std::string_view name, std::initializer_list<Span> reads,
              std::initializer_list<Span> writes, const KernelOptions& options = {});
  void kernel(StreamId s, std::string_view name, const std::vector<Span>& reads,
              const std::vector<Span>& writes, const KernelOptions& options = {});
  // Copies min(dst.size, src.size) bytes; the direction follows the spaces.
  void memcpy(StreamId s, Span dst, Span src, bool async = true);
  void memset(StreamId s, Span dst, uint32_t value = 0);
  void record(EventId e, StreamId s);
  void wait(StreamId s, EventId e);
  void sync(StreamId s);
  void sync_event(EventId e);
  void sync_device();
  void query(EventId e, bool ready);
  void query_stream(StreamId s, bool ready);
  void host_read(Span span);
  void host_write(Span span);
  void host_func(StreamId s, std::string_view name, std::initializer_list<Span> reads = {},
                 std::initializer_list<Span> writes = {});
  void mark(std::string_view text);

  // NVTX ranges: ops carry the joined path of the open ranges.
  void push_range(std::string_view name);
  void pop_range();

  // Host time of the next op; each op advances it by one modelled API call.
  void set_clock(int64_t ns) { clock_ = ns; }
  int64_t clock() const { return clock_; }

  // A GPU code module (a cubin or fatbin image and/or analysed functions),
  // stored once per content: an image already added returns its id. Name
  // the id in Kernel.module (last_op().mutable_kernel()->set_module(id)).
  uint32_t module(std::string_view name, const std::string& image, const std::string& sha256 = {},
                  std::vector<v1::FunctionCode> functions = {});

  // The op just added (to set device times or tweak fields).
  v1::Op& last_op();
  uint64_t next_seq() const { return seq_; }
  uint64_t op_count() const { return seq_ - 1; }

  // In-memory mode: the finished trace.
  v1::Chunk take();
  // Streaming mode: writes what is pending.
  Status finish();

 private:
  v1::Op& new_op(StreamId s);
  Buffer make_region(std::string_view label, uint64_t size, v1::AddressSpace space,
                     v1::RegionOrigin origin, uint64_t base);
  uint64_t next_address(v1::AddressSpace space, uint64_t size);
  void add_access(google::protobuf::RepeatedPtrField<v1::Access>* out, const Span& span,
                  v1::AccessMode mode, v1::Precision precision);
  void ensure_thread();
  void update_range_path();
  v1::Chunk& out();

  v1::Chunk own_;
  TraceWriter* writer_ = nullptr;
  Status status_ = Ok{};
  uint32_t strings_ = 0, streams_ = 0, events_ = 0, threads_ = 0, regions_ = 0, modules_ = 0;
  std::map<std::string, uint32_t> module_ids_;  // by sha256
  uint32_t current_thread_ = 0;
  uint64_t seq_ = 1;
  int64_t clock_ = 0;
  uint64_t next_device_ = 0x7f0000000000ull;
  uint64_t next_pinned_ = 0x200000000ull;
  uint64_t next_pageable_ = 0x5600000000ull;
  std::unordered_map<std::string, uint32_t> interned_;
  std::vector<std::string> ranges_;
  uint32_t range_path_ = 0;
};

}  // namespace racetrack
