#include "trace_assembler.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

#include "assembler_calls.h"
#include "assembler_graphs.h"
#include "assembler_memory.h"
#include "assembler_modules.h"
#include "assembler_nvtx.h"
#include "assembler_op_ranges.h"
#include "assembler_ops.h"
#include "assembler_output.h"
#include "assembler_regions.h"
#include "assembler_streams.h"
#include "copy_shape_words.h"
#include "racetrack/traces/describe.h"

namespace racetrack::capture {
namespace {

constexpr int32_t kNotReady = 600;  // cudaErrorNotReady, CUDA_ERROR_NOT_READY

bool is_query(ApiKind kind) {
  return kind == ApiKind::kStreamQuery || kind == ApiKind::kEventQuery;
}

// A failed call did nothing; a query's "not ready" is its answer, not a failure.
bool failed(const ApiEvent& e) {
  return e.result != 0 && !(is_query(e.kind) && e.result == kNotReady);
}

// Captured into a graph (a node was created inside the call): not executed.
bool captured(const ApiEvent& e) { return e.graph_node != 0; }

bool is_nvtx(ApiKind kind) {
  return kind == ApiKind::kNvtxPush || kind == ApiKind::kNvtxPop || kind == ApiKind::kNvtxMark;
}

uint32_t context_of_record(const DeviceRecord& record) {
  return std::visit([](const auto& r) -> uint32_t { return r.context_id; }, record);
}

std::optional<uint32_t> device_of_record(const DeviceRecord& record) {
  return std::visit(
      [](const auto& r) -> std::optional<uint32_t> {
        if constexpr (requires { r.device; }) return r.device;
        return std::nullopt;
      },
      record);
}

uint32_t stream_of_record(const DeviceRecord& record) {
  return std::visit([](const auto& r) -> uint32_t { return r.stream_id; }, record);
}

template <typename T>
void set_device_times(v1::Op& op, const T* record, const TraceOutput& out) {
  if (!record || record->start == 0 || record->end < record->start) return;
  op.set_device_start(out.relative(record->start));
  op.set_device_end(out.relative(record->end));
}

}  // namespace

struct TraceAssembler::State {
  State(TraceWriter& writer, AssemblerOptions opts)
      : options(std::move(opts)),
        out(writer, options.header),
        streams(out),
        events(out),
        regions(out),
        nvtx(out, regions),
        memory(out, regions, arrays),
        modules(out, options.modules) {
    nvtx.set_block_handler([this](const ApiEvent& e, const ParsedAnnotation& a) { on_block(e, a); });
    nvtx.set_event_resolver([this](uint64_t handle) { return events.event_for(handle); });
  }

  AssemblerOptions options;
  AssemblerStats stats;
  TraceOutput out;
  StreamTable streams;
  EventTable events;
  RegionTable regions;
  ArrayTable arrays;
  NvtxTracker nvtx;
  MemoryOps memory;
  ModuleTable modules;
  GraphTable graphs;
  CallQueue calls;
  uint64_t complete_below = 0;
  std::optional<int64_t> now;
  bool finishing = false;
  // The context of each thread's latest API call: NVTX marks name streams by
  // handle only.
  std::unordered_map<uint64_t, uint32_t> thread_context;
  uint32_t current_stack = 0;  // the host stack of the op being written

  void write_ready();
  bool records_complete(const Call& call) const;
  uint64_t graph_exec_of(const Call& call) const;
  void write_call(Call& call, bool records_missing, const OpRangeTail* tail);
  bool reads_op_range(const Call& call) const;
  void on_block(const ApiEvent& event, const ParsedAnnotation& block);
  void write_graph_launch(const Call& call, v1::Op& op, uint32_t device);
  uint32_t context_of(const Call& call) const;
  uint32_t stream_of(const Call& call);
  v1::Op& begin_op(const Call& call, uint32_t stream);
  void sync_stats() {
    stats.ops_written = out.ops_written();
    stats.modules = modules.stats();
  }
  void write_batch(const Call& call, uint32_t device);
  void write_kernel(v1::Kernel& kernel, const ApiEvent& e, std::span<const uint64_t> words,
                    const KernelRecord* record, std::span<const AnnotatedAccess> accesses) {
    const uint32_t module = modules.module_of(e, record ? std::string_view(record->name) : std::string_view());
    fill_kernel(kernel, e, words, record, accesses, out, regions);
    kernel.set_module(module);
    if (e.kind == ApiKind::kLaunch && e.event) {
      kernel.set_programmatic_event(events.event_for(e.event));
      kernel.set_programmatic_event_at_block_start((e.flags & kFlagProgrammaticEventAtBlockStart) != 0);
    }
  }
};

uint32_t TraceAssembler::State::context_of(const Call& call) const {
  if (call.event.context_id != kNoId) return call.event.context_id;
  for (const DeviceRecord& r : call.records)
    if (context_of_record(r) != kNoId && !std::holds_alternative<MemoryRecord>(r))
      return context_of_record(r);
  return 0;
}

uint32_t TraceAssembler::State::stream_of(const Call& call) {
  uint32_t cupti_id = call.event.stream_id;
  for (const DeviceRecord& r : call.records)
    if (cupti_id == kNoId && !std::holds_alternative<MemoryRecord>(r)) cupti_id = stream_of_record(r);
  return streams.stream_for(call.event, context_of(call), cupti_id);
}

v1::Op& TraceAssembler::State::begin_op(const Call& call, uint32_t stream) {
  const ApiEvent& e = call.event;
  v1::Op& op = out.begin_op(e.os_tid, e.host_start, e.host_end);
  op.set_stream(stream);
  op.set_correlation_id(e.correlation);
  op.set_nvtx(nvtx.path(e.os_tid));
  op.set_stack(current_stack);
  return op;
}

// cudaMemcpyBatchAsync: one Memcpy op per copy of the batch, in the
// batch's order, all with the call's correlation id. Copy records pair
// with the copies in order (CUPTI reports one per copy; a copy whose record
// did not arrive has no device times).
void TraceAssembler::State::write_batch(const Call& call, uint32_t device) {
  std::vector<const CopyRecord*> records;
  for (const DeviceRecord& r : call.records)
    if (const auto* c = std::get_if<CopyRecord>(&r)) records.push_back(c);
  const bool shaped = call.event.flags & kFlagBatch3D;
  const uint32_t per_copy = shaped ? kBatch3DWordsPerCopy : kBatchWordsPerCopy;
  const size_t copies = call.payload.size() / per_copy;
  const uint32_t stream = stream_of(call);
  std::vector<uint64_t> words;
  for (size_t i = 0; i < copies; ++i) {
    const uint64_t* copy = call.payload.data() + i * per_copy;
    ApiEvent one = call.event;
    one.flags &= static_cast<uint16_t>(~(kFlagBatch | kFlagBatch3D));
    one.dst = copy[0];
    one.src = copy[1];
    words.clear();
    if (shaped) {  // cudaMemcpy3DBatchAsync: a pitched copy, placed like any with array sides
      one.flags |= kFlagPitched | kFlagArraySides;
      words.assign(copy + 2, copy + per_copy);
      arrays.resolve(one, words);
    } else {
      one.bytes = copy[2];
    }
    const CopyRecord* record = i < records.size() ? records[i] : nullptr;
    v1::Op& op = begin_op(call, stream);
    fill_memcpy(*op.mutable_memcpy(), one, words, record, device, regions);
    set_device_times(op, record, out);
  }
}

uint64_t TraceAssembler::State::graph_exec_of(const Call& call) const {
  if (call.event.value != 0) return call.event.value;
  for (const DeviceRecord& r : call.records) {
    if (const auto* k = std::get_if<KernelRecord>(&r); k && k->graph_id) return k->graph_id;
    if (const auto* c = std::get_if<CopyRecord>(&r); c && c->graph_id) return c->graph_id;
    if (const auto* m = std::get_if<MemsetRecord>(&r); m && m->graph_id) return m->graph_id;
  }
  return 0;
}

// Whether every device record the call's op takes has arrived.
bool TraceAssembler::State::records_complete(const Call& call) const {
  const ApiEvent& e = call.event;
  if (failed(e) || captured(e)) return true;  // written as nothing
  switch (e.kind) {
    case ApiKind::kLaunch: return call.first_record<KernelRecord>() != nullptr;
    case ApiKind::kMemcpy:  // a batch waits for a record per copy
      return call.count_records<CopyRecord>() >=
             ((e.flags & kFlagBatch)     ? std::max<size_t>(1, call.payload.size() / kBatchWordsPerCopy)
              : (e.flags & kFlagBatch3D) ? std::max<size_t>(1, call.payload.size() / kBatch3DWordsPerCopy)
                                         : 1);
    case ApiKind::kMemset: return call.first_record<MemsetRecord>() != nullptr;
    case ApiKind::kEventRecord: return call.first_record<EventRecordRecord>() != nullptr;
    case ApiKind::kStreamWait: return call.first_record<SyncRecord>() != nullptr;
    case ApiKind::kGraphLaunch: {
      const uint64_t exec = graph_exec_of(call);
      if (exec == 0) return false;  // known from the first record
      const size_t arrived = call.count_records<KernelRecord>() + call.count_records<CopyRecord>() +
                             call.count_records<MemsetRecord>();
      return arrived >= GraphTable::records_expected(graphs.nodes_of(exec));
    }
    default: return true;
  }
}

void TraceAssembler::State::write_ready() {
  while (!calls.empty()) {
    Call& call = calls.head();
    if (!finishing && call.event.seq >= complete_below) break;  // earlier calls may still come
    const bool complete = records_complete(call);
    const int64_t ended = std::max(call.event.host_end, call.event.host_start);
    const bool waited_enough = finishing || (now && *now - ended > options.record_wait_ns);
    if (!complete && !waited_enough) break;
    std::optional<OpRangeTail> tail;
    if (reads_op_range(call)) {
      tail = read_op_range_tail(calls, call);
      if (!tail && !waited_enough) break;  // the operator's range is still open
    }
    write_call(call, !complete, tail ? &*tail : nullptr);
    calls.pop_head(now);
  }
  sync_stats();
}

bool TraceAssembler::State::reads_op_range(const Call& call) const {
  const ApiKind kind = call.event.kind;
  return (kind == ApiKind::kLaunch || kind == ApiKind::kMemcpy || kind == ApiKind::kMemset) &&
         !failed(call.event) && nvtx.in_op_range(call.event.os_tid);
}

// A framework allocator block (a tensor's storage) becomes live or is freed,
// stream-ordered on the stream it belongs to.
void TraceAssembler::State::on_block(const ApiEvent& e, const ParsedAnnotation& block) {
  const AnnotatedAccess& extent = block.accesses.front();
  auto known = thread_context.find(e.os_tid);
  const uint32_t context = known == thread_context.end() ? 0 : known->second;
  ApiEvent named;
  named.stream = block.stream;
  named.os_tid = e.os_tid;
  const uint32_t stream = streams.stream_for(named, context, kNoId);
  uint32_t region = 0;
  if (block.verb == AnnotationVerb::kBlockAlloc) {
    const LiveRegion* segment = regions.containing(extent.address, extent.bytes);
    const uint32_t device = segment ? segment->device : streams.device_of(context);
    region = regions
                 .add(v1::SPACE_DEVICE, extent.address, extent.bytes, device, v1::ORIGIN_FRAMEWORK_BLOCK,
                      out.next_seq())
                 .id;
  } else if (auto freed = regions.remove_block(extent.address, extent.bytes)) {
    region = freed->id;
  } else {
    ++stats.unknown_frees;
    return;
  }
  v1::Op& op = out.begin_op(e.os_tid, e.host_start, e.host_end);
  op.set_stream(stream);
  op.set_nvtx(nvtx.path(e.os_tid));
  if (block.verb == AnnotationVerb::kBlockAlloc) {
    op.mutable_alloc()->set_region(region);
    op.mutable_alloc()->set_stream_ordered(true);
  } else {
    op.mutable_free()->set_region(region);
    op.mutable_free()->set_stream_ordered(true);
  }
  out.end_op();
}

void TraceAssembler::State::write_call(Call& call, bool records_missing, const OpRangeTail* tail) {
  const ApiEvent& e = call.event;
  if (call.applied) return;
  if (is_nvtx(e.kind)) return nvtx.on_event(e, call.payload);
  switch (e.kind) {
    case ApiKind::kGraphNodeCreated: return graphs.on_node_created(e.handle, e.value);
    case ApiKind::kGraphNodeCloned: return graphs.on_cloned(e.handle, e.src, e.dst);
    case ApiKind::kGraphDependency: return graphs.on_dependency(e.handle, e.src);
    default: break;
  }
  // Accesses announced for "the next launch" belong to this one even if it
  // failed or was captured.
  std::vector<AnnotatedAccess> launch_accesses;
  if (e.kind == ApiKind::kLaunch) launch_accesses = nvtx.take_launch_accesses(e.os_tid);
  current_stack = 0;
  if (tail) {
    // The blocks the operator allocated exist before its kernels run.
    for (Call* alloc : tail->block_allocs) {
      nvtx.on_event(alloc->event, alloc->payload);
      alloc->applied = true;
    }
    if (e.kind == ApiKind::kLaunch)
      launch_accesses.insert(launch_accesses.end(), tail->outputs.begin(), tail->outputs.end());
    if (!tail->stack.empty()) current_stack = out.intern(tail->stack);
  }
  if (failed(e)) {
    ++stats.failed_calls;
    // A failed cudaStreamEndCapture (cudaErrorStreamCaptureUnjoined) still
    // ends the capture: its op is where check reports why.
    if (e.kind != ApiKind::kCaptureEnd) return;
  }
  if (captured(e)) {
    graphs.add_template(e.graph_node, NodeTemplate{e, call.payload, std::move(launch_accesses)});
    ++stats.graph_templates;
    return;
  }

  const uint32_t context = context_of(call);
  thread_context[e.os_tid] = context;
  switch (e.kind) {
    case ApiKind::kStreamCreate: return streams.on_create(e, context);
    case ApiKind::kStreamDestroy: return streams.on_destroy(e, context);
    case ApiKind::kEventDestroy: return events.on_destroy(e.event);
    case ApiKind::kUnknown: return;
    default: break;
  }
  if (is_memory_call(e.kind)) {
    const bool ordered = e.kind == ApiKind::kMallocAsync || e.kind == ApiKind::kFreeAsync;
    stats.unknown_frees +=
        memory.write(call, ordered ? stream_of(call) : 0, streams.device_of(context), nvtx.path(e.os_tid));
    return;
  }
  // Memory the call allocated on the side (a library call, a module load).
  memory.write_nested(call, nvtx.path(e.os_tid));

  if (records_missing) ++stats.ops_without_record;
  const uint32_t device = streams.device_of(context);
  switch (e.kind) {
    case ApiKind::kLaunch: {
      v1::Op& op = begin_op(call, stream_of(call));
      const KernelRecord* record = call.first_record<KernelRecord>();
      write_kernel(*op.mutable_kernel(), e, call.payload, record, launch_accesses);
      set_device_times(op, record, out);
      break;
    }
    case ApiKind::kMemcpy: {
      if (e.flags & (kFlagBatch | kFlagBatch3D)) {
        write_batch(call, device);
        break;
      }
      v1::Op& op = begin_op(call, stream_of(call));
      const CopyRecord* record = call.first_record<CopyRecord>();
      if (e.flags & kFlagArraySides) {
        ApiEvent placed = e;
        std::vector<uint64_t> words = call.payload;
        arrays.resolve(placed, words);
        fill_memcpy(*op.mutable_memcpy(), placed, words, record, device, regions);
      } else {
        fill_memcpy(*op.mutable_memcpy(), e, call.payload, record, device, regions);
      }
      // cudaMemcpyToSymbol / FromSymbol: named by the symbol's host shadow.
      if ((e.flags & (kFlagDstUnknown | kFlagSrcUnknown)) && e.handle)
        op.mutable_memcpy()->set_symbol(out.intern("symbol@" + hex(e.handle)));
      set_device_times(op, record, out);
      break;
    }
    case ApiKind::kHostFunc: {
      v1::Op& op = begin_op(call, stream_of(call));
      op.mutable_host_func()->set_name(out.intern("host function@" + hex(e.handle)));
      break;
    }
    case ApiKind::kMemset: {
      v1::Op& op = begin_op(call, stream_of(call));
      const MemsetRecord* record = call.first_record<MemsetRecord>();
      fill_memset(*op.mutable_memset(), e, call.payload, record, regions);
      set_device_times(op, record, out);
      break;
    }
    case ApiKind::kEventRecord: {
      v1::Op& op = begin_op(call, stream_of(call));
      op.mutable_record()->set_event(events.event_for(e.event));
      if (const auto* r = call.first_record<EventRecordRecord>())
        op.mutable_record()->set_sync_id(r->sync_id);
      break;
    }
    case ApiKind::kStreamWait: {
      v1::Op& op = begin_op(call, stream_of(call));
      op.mutable_wait()->set_event(events.event_for(e.event));
      for (const DeviceRecord& r : call.records)
        if (const auto* s = std::get_if<SyncRecord>(&r); s && s->type == SyncType::kStreamWaitEvent)
          op.mutable_wait()->set_sync_id(s->sync_id);
      break;
    }
    case ApiKind::kStreamSync:
      begin_op(call, stream_of(call)).mutable_sync()->set_kind(v1::SYNC_STREAM);
      break;
    case ApiKind::kEventSync: {
      v1::Sync& sync = *begin_op(call, 0).mutable_sync();
      sync.set_kind(v1::SYNC_EVENT);
      sync.set_event(events.event_for(e.event));
      break;
    }
    case ApiKind::kDeviceSync: {
      v1::Sync& sync = *begin_op(call, 0).mutable_sync();
      sync.set_kind(v1::SYNC_DEVICE);
      sync.set_device(device);
      break;
    }
    case ApiKind::kStreamQuery: {
      v1::Query& query = *begin_op(call, stream_of(call)).mutable_query();
      query.set_kind(v1::QUERY_STREAM);
      query.set_ready(e.result == 0);
      break;
    }
    case ApiKind::kEventQuery: {
      v1::Query& query = *begin_op(call, 0).mutable_query();
      query.set_kind(v1::QUERY_EVENT);
      query.set_event(events.event_for(e.event));
      query.set_ready(e.result == 0);
      break;
    }
    case ApiKind::kGraphLaunch: {
      v1::Op& op = begin_op(call, stream_of(call));
      write_graph_launch(call, op, device);
      break;
    }
    case ApiKind::kCaptureBegin:
    case ApiKind::kCaptureEnd: {
      // Work submitted in between is captured, not run (docs/trace-format.md).
      v1::Op& op = begin_op(call, stream_of(call));
      const bool begin = e.kind == ApiKind::kCaptureBegin;
      op.mutable_capture()->set_phase(begin ? v1::CAPTURE_BEGIN : v1::CAPTURE_END);
      if (begin)
        graphs.on_capture_begin(e.stream);
      else
        graphs.on_capture_end(e.stream, op.seq());
      break;
    }
    default: return;  // nothing else is an op
  }
  out.end_op();
}

void TraceAssembler::State::write_graph_launch(const Call& call, v1::Op& op, uint32_t device) {
  const uint64_t exec = graph_exec_of(call);
  v1::GraphLaunch& graph = *op.mutable_graph();
  graph.set_graph_id(exec);
  // The launch's records, by the exec node they ran; their span is the op's.
  std::unordered_map<uint64_t, const DeviceRecord*> by_node;
  int64_t start = std::numeric_limits<int64_t>::max(), end = std::numeric_limits<int64_t>::min();
  for (const DeviceRecord& r : call.records) {
    std::visit(
        [&](const auto& rec) {
          if constexpr (requires {
                          rec.graph_node_id;
                          rec.start;
                        }) {
            by_node.emplace(rec.graph_node_id, &r);
            if (rec.start != 0 && rec.end >= rec.start) {
              start = std::min(start, rec.start);
              end = std::max(end, rec.end);
            }
          }
        },
        r);
  }
  if (start <= end) {
    op.set_device_start(out.relative(start));
    op.set_device_end(out.relative(end));
  }
  auto record_of = [&]<typename T>(uint64_t node) -> const T* {
    auto it = by_node.find(node);
    return it == by_node.end() ? nullptr : std::get_if<T>(it->second);
  };
  const std::vector<LaunchedNode> nodes = graphs.nodes_of(exec);
  graph.set_captured_seq(GraphTable::captured_seq(nodes));
  for (size_t i = 0; i < nodes.size(); ++i) {
    const LaunchedNode& node = nodes[i];
    v1::GraphNode& out_node = *graph.add_nodes();
    out_node.set_index(static_cast<uint32_t>(i));
    out_node.mutable_deps()->Add(node.deps.begin(), node.deps.end());
    const KernelRecord* kernel = record_of.template operator()<KernelRecord>(node.exec_node);
    if (!node.from) {
      // Not seen being captured: a kernel record still names it.
      if (kernel) write_kernel(*out_node.mutable_kernel(), ApiEvent{}, {}, kernel, {});
      continue;
    }
    const NodeTemplate& t = *node.from;
    switch (t.event.kind) {
      case ApiKind::kLaunch:
        write_kernel(*out_node.mutable_kernel(), t.event, t.words, kernel, t.accesses);
        break;
      case ApiKind::kMemcpy:
        fill_memcpy(*out_node.mutable_memcpy(), t.event, t.words,
                    record_of.template operator()<CopyRecord>(node.exec_node), device, regions);
        break;
      case ApiKind::kMemset:
        fill_memset(*out_node.mutable_memset(), t.event, t.words,
                    record_of.template operator()<MemsetRecord>(node.exec_node), regions);
        break;
      default: break;  // a dependency-only node
    }
  }
}

TraceAssembler::TraceAssembler(TraceWriter& writer, AssemblerOptions options)
    : state_(std::make_unique<State>(writer, std::move(options))) {}

TraceAssembler::~TraceAssembler() = default;

void TraceAssembler::add_api(const ApiEvent& event, std::span<const uint64_t> payload) {
  State& s = *state_;
  ++s.stats.api_events;
  s.out.set_origin(event.host_start);
  // In arrival order: a load is tied to the launch that follows it on its thread.
  s.modules.on_event(event);
  if (event.kind == ApiKind::kModuleLoaded) return;  // not an op: its image follows
  if (s.calls.add(event, payload)) ++s.stats.merged_nested_calls;
}

void TraceAssembler::add_module_image(uint64_t cupti_module, std::span<const uint8_t> image,
                                      std::string_view source) {
  State& s = *state_;
  s.modules.add_image(cupti_module, image, source);
  s.sync_stats();
}

void TraceAssembler::add_record(DeviceRecord record) {
  State& s = *state_;
  ++s.stats.records;
  if (auto device = device_of_record(record))
    s.streams.note_context_device(context_of_record(record), *device);
  if (const auto* stream = std::get_if<StreamRecord>(&record)) return s.streams.on_record(*stream);
  if (const auto* memory = std::get_if<MemoryRecord>(&record); memory && is_static(*memory))
    return s.memory.add_static(*memory);
  s.calls.add_record(std::move(record), s.now);
}

Status TraceAssembler::advance(uint64_t complete_below, int64_t now_ns) {
  State& s = *state_;
  s.complete_below = std::max(s.complete_below, complete_below);
  s.now = now_ns;
  s.write_ready();
  s.stats.unmatched_records += s.calls.drop_stale_orphans(now_ns, s.options.record_wait_ns);
  return s.out.flush();
}

Status TraceAssembler::finish() {
  State& s = *state_;
  s.finishing = true;
  s.write_ready();
  s.stats.unmatched_records += s.calls.drop_all_orphans();
  return s.out.flush();
}

void TraceAssembler::note(const std::string& text, int64_t now_ns) {
  State& s = *state_;
  v1::Op& op = s.out.begin_op(s.out.last_os_tid(), now_ns, now_ns);
  op.mutable_annotation()->set_kind(v1::ANNOTATE_MARK);
  op.mutable_annotation()->set_text(s.out.intern(text));
  s.out.end_op();
  s.sync_stats();
}

const AssemblerStats& TraceAssembler::stats() const {
  return state_->stats;
}

}  // namespace racetrack::capture
