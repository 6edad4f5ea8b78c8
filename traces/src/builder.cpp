#include "racetrack/traces/builder.h"

#include "racetrack/traces/sha256.h"

#include <algorithm>

namespace racetrack {
namespace {

constexpr int64_t kHostCallNs = 2000;  // modelled cost of one API call
constexpr uint64_t kAlignment = 512;

uint64_t align_up(uint64_t v) { return (v + kAlignment - 1) / kAlignment * kAlignment; }

v1::AddressSpace space_of(v1::RegionOrigin origin) {
  if (origin == v1::ORIGIN_HOST_ALLOC) return v1::SPACE_PINNED_HOST;
  if (origin == v1::ORIGIN_HOST_MALLOC) return v1::SPACE_PAGEABLE_HOST;
  return v1::SPACE_DEVICE;
}

bool is_host(v1::AddressSpace s) { return s == v1::SPACE_PINNED_HOST || s == v1::SPACE_PAGEABLE_HOST; }

}  // namespace

TraceBuilder::TraceBuilder() { header(); }

TraceBuilder::TraceBuilder(TraceWriter& writer) : writer_(&writer) { header(); }

v1::Chunk& TraceBuilder::out() { return writer_ ? writer_->pending() : own_; }

v1::Header& TraceBuilder::header() {
  v1::Header& h = *out().mutable_header();
  if (h.format_version() == 0) {
    h.set_format_version(kFormatVersion);
    h.set_producer("racetrack-builder");
    h.set_rank(-1);
    h.set_clock_domain(v1::CLOCK_DOMAIN_SYNTHETIC);
  }
  return h;
}

uint32_t TraceBuilder::intern(std::string_view text) {
  if (text.empty()) return 0;
  auto [it, inserted] = interned_.try_emplace(std::string(text), strings_ + 1);
  if (inserted) {
    ++strings_;
    out().add_strings(std::string(text));
  }
  return it->second;
}

StreamId TraceBuilder::stream(std::string_view name, v1::StreamRole role, v1::StreamFlags flags,
                              int32_t priority) {
  v1::Stream& s = *out().add_streams();
  s.set_id(++streams_);
  s.set_name(intern(name));
  s.set_role(role);
  s.set_flags(flags);
  s.set_priority(priority);
  return StreamId{streams_};
}

StreamId TraceBuilder::legacy_stream() {
  return stream("", v1::ROLE_COMPUTE, v1::STREAM_LEGACY_DEFAULT);
}

EventId TraceBuilder::event(std::string_view name) {
  v1::Event& e = *out().add_events();
  e.set_id(++events_);
  e.set_name(intern(name));
  return EventId{events_};
}

ThreadId TraceBuilder::thread(std::string_view name) {
  v1::HostThread& t = *out().add_threads();
  t.set_id(++threads_);
  t.set_os_tid(1000 + threads_);
  t.set_name(intern(name));
  return ThreadId{threads_};
}

void TraceBuilder::ensure_thread() {
  if (current_thread_ == 0) current_thread_ = threads_ ? 1 : thread("main").id;
}

void TraceBuilder::on_thread(ThreadId t) { current_thread_ = t.id; }

uint64_t TraceBuilder::next_address(v1::AddressSpace space, uint64_t size) {
  uint64_t& next = space == v1::SPACE_DEVICE ? next_device_
                   : space == v1::SPACE_PINNED_HOST ? next_pinned_
                                                    : next_pageable_;
  const uint64_t base = next;
  next = align_up(base + size);
  return base;
}

Buffer TraceBuilder::make_region(std::string_view label, uint64_t size, v1::AddressSpace space,
                                 v1::RegionOrigin origin, uint64_t base) {
  v1::Region& r = *out().add_regions();
  r.set_id(++regions_);
  r.set_space(space);
  r.set_base(base);
  r.set_size(size);
  r.set_origin(origin);
  r.set_label(intern(label));
  return Buffer{regions_, base, size, space};
}

Buffer TraceBuilder::device_buffer(std::string_view label, uint64_t size) {
  return make_region(label, size, v1::SPACE_DEVICE, v1::ORIGIN_CUDA_MALLOC,
                     next_address(v1::SPACE_DEVICE, size));
}

Buffer TraceBuilder::pinned_buffer(std::string_view label, uint64_t size) {
  return make_region(label, size, v1::SPACE_PINNED_HOST, v1::ORIGIN_HOST_ALLOC,
                     next_address(v1::SPACE_PINNED_HOST, size));
}

Buffer TraceBuilder::pageable_buffer(std::string_view label, uint64_t size) {
  return make_region(label, size, v1::SPACE_PAGEABLE_HOST, v1::ORIGIN_HOST_MALLOC,
                     next_address(v1::SPACE_PAGEABLE_HOST, size));
}

Buffer TraceBuilder::alloc(std::string_view label, uint64_t size, v1::RegionOrigin origin,
                           StreamId stream, const Buffer* at) {
  return alloc_at(label, size, origin, stream,
                  at ? at->base : next_address(space_of(origin), size));
}

Buffer TraceBuilder::alloc_at(std::string_view label, uint64_t size, v1::RegionOrigin origin,
                              StreamId stream, uint64_t base) {
  Buffer b = make_region(label, size, space_of(origin), origin, base);
  // The alloc op may land in the next chunk: say in the region that one comes.
  out().mutable_regions()->rbegin()->set_alloc_seq(seq_);
  v1::Op& op = new_op(stream);
  v1::Alloc& a = *op.mutable_alloc();
  a.set_region(b.region);
  a.set_stream_ordered(stream.id != 0);
  a.set_device_sync(origin == v1::ORIGIN_CUDA_MALLOC || origin == v1::ORIGIN_HOST_ALLOC);
  return b;
}

void TraceBuilder::free(const Buffer& buffer, StreamId stream) {
  v1::Op& op = new_op(stream);
  v1::Free& f = *op.mutable_free();
  f.set_region(buffer.region);
  f.set_stream_ordered(stream.id != 0);
}

void TraceBuilder::cuda_free(const Buffer& buffer) {
  v1::Op& op = new_op({});
  op.mutable_free()->set_region(buffer.region);
  op.mutable_free()->set_device_sync(true);
}

v1::Op& TraceBuilder::new_op(StreamId s) {
  ensure_thread();
  if (writer_) {
    auto status = writer_->commit_if_full();
    if (!status && status_) status_ = status;
  }
  v1::Op& op = *out().add_ops();
  op.set_seq(seq_++);
  op.set_thread(current_thread_);
  op.set_stream(s.id);
  op.set_host_start(clock_);
  clock_ += kHostCallNs;
  op.set_host_end(clock_);
  op.set_nvtx(range_path_);
  return op;
}

v1::Op& TraceBuilder::last_op() { return *out().mutable_ops()->rbegin(); }

void TraceBuilder::add_access(google::protobuf::RepeatedPtrField<v1::Access>* out, const Span& span,
                              v1::AccessMode mode, v1::Precision precision) {
  v1::Access& a = *out->Add();
  if (span.region) {
    a.set_region(span.region);
    a.set_offset(span.offset);
  } else {
    a.set_address(span.address);
  }
  a.set_size(span.size);
  a.set_mode(mode);
  a.set_precision(precision);
}

void TraceBuilder::kernel(StreamId s, std::string_view name, std::initializer_list<Span> reads,
                          std::initializer_list<Span> writes, const KernelOptions& options) {
  kernel(s, name, std::vector<Span>(reads), std::vector<Span>(writes), options);
}

void TraceBuilder::kernel(StreamId s, std::string_view name, const std::vector<Span>& reads,
                          const std::vector<Span>& writes, const KernelOptions& options) {
  const uint32_t name_id = intern(name);
  v1::Op& op = new_op(s);
  v1::Kernel& k = *op.mutable_kernel();
  k.set_name(name_id);
  for (uint32_t v : {128u, 1u, 1u}) k.add_grid(v);
  for (uint32_t v : {256u, 1u, 1u}) k.add_block(v);
  auto add = [&](const Span& span, v1::AccessMode mode) {
    k.add_arg_words(span.address);
    if (options.raw_words_only) return;
    add_access(k.mutable_accesses(), span, options.known_modes ? mode : v1::MODE_UNKNOWN,
               options.precision);
    k.mutable_accesses()->rbegin()->set_arg_index(static_cast<uint32_t>(k.arg_words_size()));
  };
  for (const Span& r : reads) add(r, v1::MODE_READ);
  for (const Span& w : writes) add(w, v1::MODE_WRITE);
  for (uint64_t word : options.scalars) k.add_arg_words(word);
  if (options.duration_ns > 0) {
    op.set_device_start(op.host_end());
    op.set_device_end(op.host_end() + options.duration_ns);
  }
}

void TraceBuilder::memcpy(StreamId s, Span dst, Span src, bool async) {
  v1::Op& op = new_op(s);
  v1::Memcpy& c = *op.mutable_memcpy();
  c.set_dst(dst.address);
  c.set_src(src.address);
  c.set_bytes(std::min(dst.size, src.size));
  c.set_dst_space(dst.space);
  c.set_src_space(src.space);
  c.set_async(async);
  c.set_direction(is_host(src.space) ? (is_host(dst.space) ? v1::COPY_H2H : v1::COPY_H2D)
                                     : (is_host(dst.space) ? v1::COPY_D2H : v1::COPY_D2D));
}

void TraceBuilder::memset(StreamId s, Span dst, uint32_t value) {
  v1::Op& op = new_op(s);
  v1::Memset& m = *op.mutable_memset();
  m.set_dst(dst.address);
  m.set_bytes(dst.size);
  m.set_value(value);
  m.set_space(dst.space);
  m.set_async(true);
}

void TraceBuilder::record(EventId e, StreamId s) { new_op(s).mutable_record()->set_event(e.id); }

void TraceBuilder::wait(StreamId s, EventId e) { new_op(s).mutable_wait()->set_event(e.id); }

void TraceBuilder::sync(StreamId s) { new_op(s).mutable_sync()->set_kind(v1::SYNC_STREAM); }

void TraceBuilder::sync_event(EventId e) {
  v1::Sync& sync = *new_op({}).mutable_sync();
  sync.set_kind(v1::SYNC_EVENT);
  sync.set_event(e.id);
}

void TraceBuilder::sync_device() { new_op({}).mutable_sync()->set_kind(v1::SYNC_DEVICE); }

void TraceBuilder::query(EventId e, bool ready) {
  v1::Query& q = *new_op({}).mutable_query();
  q.set_kind(v1::QUERY_EVENT);
  q.set_event(e.id);
  q.set_ready(ready);
}

void TraceBuilder::query_stream(StreamId s, bool ready) {
  v1::Query& q = *new_op(s).mutable_query();
  q.set_kind(v1::QUERY_STREAM);
  q.set_ready(ready);
}

void TraceBuilder::host_read(Span span) {
  add_access(new_op({}).mutable_host_access()->mutable_accesses(), span, v1::MODE_READ,
             v1::PRECISION_EXACT);
}

void TraceBuilder::host_write(Span span) {
  add_access(new_op({}).mutable_host_access()->mutable_accesses(), span, v1::MODE_WRITE,
             v1::PRECISION_EXACT);
}

void TraceBuilder::host_func(StreamId s, std::string_view name, std::initializer_list<Span> reads,
                             std::initializer_list<Span> writes) {
  const uint32_t name_id = intern(name);
  v1::HostFunc& f = *new_op(s).mutable_host_func();
  f.set_name(name_id);
  for (const Span& r : reads) add_access(f.mutable_accesses(), r, v1::MODE_READ, v1::PRECISION_EXACT);
  for (const Span& w : writes) add_access(f.mutable_accesses(), w, v1::MODE_WRITE, v1::PRECISION_EXACT);
}

void TraceBuilder::mark(std::string_view text) {
  const uint32_t id = intern(text);
  new_op({}).mutable_annotation()->set_text(id);
}

void TraceBuilder::push_range(std::string_view name) {
  ranges_.emplace_back(name);
  update_range_path();
}

void TraceBuilder::pop_range() {
  if (!ranges_.empty()) ranges_.pop_back();
  update_range_path();
}

void TraceBuilder::update_range_path() {
  std::string path;
  for (const auto& r : ranges_) path += (path.empty() ? "" : "/") + r;
  range_path_ = intern(path);
}

v1::Chunk TraceBuilder::take() {
  v1::Chunk trace = std::move(own_);
  own_.Clear();
  return trace;
}

Status TraceBuilder::finish() {
  if (!status_) return status_;
  return writer_ ? writer_->flush() : Status(Ok{});
}

}  // namespace racetrack

namespace racetrack {

uint32_t TraceBuilder::module(std::string_view name, const std::string& image, const std::string& sha256,
                              std::vector<v1::FunctionCode> functions) {
  const std::string hash = image.empty() ? sha256 : Sha256::hex(image.data(), image.size());
  if (auto it = module_ids_.find(hash); it != module_ids_.end()) return it->second;
  v1::Module& m = *out().add_modules();
  m.set_id(++modules_);
  m.set_sha256(hash);
  m.set_image(image);
  if (!name.empty()) m.set_name(intern(name));
  for (auto& f : functions) *m.add_functions() = std::move(f);
  module_ids_.emplace(hash, modules_);
  return modules_;
}

}  // namespace racetrack
