#include "export_common.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unordered_map>
#include <unordered_set>

#include "racetrack/traces/describe.h"
#include "racetrack/traces/output_file.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::exporting {
namespace {

Error write_error() {
  return make_error("cannot write the output");
}

// Pass 1: how many waits bind to each record, in record order. A wait binds
// to the latest record of its event before it in seq order.
Result<std::vector<uint32_t>> count_waits(const std::string& path, const Progress& progress) {
  auto source = TraceSource::open(path);
  if (!source) return source.error();
  std::vector<uint32_t> counts;
  std::unordered_map<uint32_t, size_t> latest;  // event -> index in counts
  for (;;) {
    auto more = source->read();
    if (!more) return more.error();
    if (!*more) return counts;
    if (progress) progress("matching records to waits", source->position(), source->size());
    const v1::Chunk& chunk = **more;
    for (const v1::Op& op : chunk.ops()) {
      if (op.has_record()) {
        latest[op.record().event()] = counts.size();
        counts.push_back(0);
      } else if (op.has_wait()) {
        if (auto it = latest.find(op.wait().event()); it != latest.end()) ++counts[it->second];
      }
    }
  }
}

class Walker {
 public:
  Walker(Sink& sink, std::vector<uint32_t> waits_per_record)
      : sink_(sink), waits_per_record_(std::move(waits_per_record)) {}

  void add_chunk(const v1::Chunk& chunk) {
    tables_.add(chunk);
    // Announce every lane the trace defines, even those without ops.
    for (uint32_t id = 1; id <= tables_.streams().size(); ++id) stream_lane(id);
    for (uint32_t id = 1; id <= tables_.threads().size(); ++id) thread_lane(id);
    for (const v1::Op& op : chunk.ops()) add_op(op);
  }

  const ExportStats& stats() const { return stats_; }

 private:
  // The latest record of an event, while waits may still bind to it.
  struct Record {
    uint64_t group = 0;
    uint64_t seq = 0;
    uint64_t next_flow = 0, end_flow = 0;  // its unused flow ids
  };

  // Announces a lane the first time it is named; returns its name.
  const std::string& stream_lane(uint32_t id) {
    auto [it, inserted] = streams_.try_emplace(id);
    if (inserted) {
      const v1::Stream* s = tables_.stream(id);
      const uint32_t device = s ? s->device() : 0;
      if (devices_.insert(device).second) sink_.device(device, device_lane_name(tables_, device));
      it->second = stream_lane_name(tables_, id);
      sink_.stream(id, device, it->second);
    }
    return it->second;
  }

  const std::string& thread_lane(uint32_t id) {
    auto [it, inserted] = threads_.try_emplace(id);
    if (inserted) {
      if (!host_announced_) {
        host_announced_ = true;
        sink_.host(host_lane_name(tables_));
      }
      it->second = thread_lane_name(tables_, id);
      sink_.thread(id, it->second);
    }
    return it->second;
  }

  void add_op(const v1::Op& op) {
    Slice& s = slice_;
    s.args.clear();
    s.flows_out.clear();
    s.flow_in = 0;
    s.record_group = 0;

    const OpSpan span = placer_.place(op);
    const bool stream_lane_op = span.lane == LaneKind::kStream;
    if (stream_lane_op)
      stream_lane(op.stream());
    else
      thread_lane(op.thread());
    s.lane = span.lane;
    s.lane_id = span.lane_id;
    s.start_ns = span.start_ns;
    s.end_ns = span.end_ns;
    Record* bound = nullptr;
    if (op.has_wait())
      if (auto it = records_.find(op.wait().event()); it != records_.end()) bound = &it->second;

    s.name = op_title(op, tables_);
    s.category = op_kind_name(op_kind(op));
    add_common_args(op, stream_lane_op, span.device_timed, span.shifted_ns);
    add_kind_args(op);

    if (op.has_record()) {
      Record& r = records_[op.record().event()];
      r.group = ++records_seen_;
      r.seq = op.seq();
      const uint32_t waits = r.group <= waits_per_record_.size() ? waits_per_record_[r.group - 1] : 0;
      r.next_flow = next_flow_;
      r.end_flow = next_flow_ + waits;
      next_flow_ += waits;
      for (uint64_t id = r.next_flow; id < r.end_flow; ++id) s.flows_out.push_back(id);
      if (waits) s.record_group = r.group;
    } else if (bound && bound->next_flow < bound->end_flow) {
      s.flow_in = bound->next_flow++;
      s.record_group = bound->group;
      add_uint("record_seq", bound->seq);
      ++stats_.flows;
    }
    sink_.slice(s);
    ++stats_.slices;
  }

  void add_common_args(const v1::Op& op, bool stream_lane_op, bool timed, uint64_t shift) {
    add_uint("seq", op.seq());
    add_string("timing", timed ? "device" : "host");
    if (shift) add_uint("shifted_ns", shift);
    if (stream_lane_op) {
      if (const v1::Stream* st = tables_.stream(op.stream()))
        add_string("role", std::string(role_name(st->role())));
      add_string("thread", thread_lane(op.thread()));
    } else if (op.stream()) {
      add_string("stream", tables_.stream_label(op.stream()));
    }
    if (op.nvtx()) add_string("nvtx", std::string(tables_.string(op.nvtx())));
    if (op.correlation_id()) add_uint("correlation_id", op.correlation_id());
  }

  void add_kind_args(const v1::Op& op) {
    switch (op.what_case()) {
      case v1::Op::kKernel: add_accesses(op.kernel().accesses()); break;
      case v1::Op::kMemcpy: {
        const v1::Memcpy& c = op.memcpy();
        add_uint("bytes", c.bytes());
        add_string("direction", std::string(direction_name(effective_direction(c))));
        add_pointer("src", c.src());
        add_string("src_space", std::string(space_name(c.src_space())));
        add_pointer("dst", c.dst());
        add_string("dst_space", std::string(space_name(c.dst_space())));
        add_bool("async", c.async());
        break;
      }
      case v1::Op::kMemset:
        add_uint("bytes", op.memset().bytes());
        add_pointer("dst", op.memset().dst());
        add_uint("value", op.memset().value());
        break;
      case v1::Op::kRecord: add_string("event", tables_.event_label(op.record().event())); break;
      case v1::Op::kWait: add_string("event", tables_.event_label(op.wait().event())); break;
      case v1::Op::kSync:
        if (op.sync().kind() == v1::SYNC_EVENT) add_string("event", tables_.event_label(op.sync().event()));
        break;
      case v1::Op::kQuery: add_bool("ready", op.query().ready()); break;
      case v1::Op::kAlloc: add_region(op.alloc().region()); break;
      case v1::Op::kFree: add_region(op.free().region()); break;
      case v1::Op::kHostFunc: add_accesses(op.host_func().accesses()); break;
      case v1::Op::kHostAccess: add_accesses(op.host_access().accesses()); break;
      case v1::Op::kGraph: add_uint("nodes", static_cast<uint64_t>(op.graph().nodes_size())); break;
      default: break;
    }
  }

  // "R X+4096 0x7f0000001000 4.0 KiB; W Y 0x7f0000002000 1.0 MiB"
  void add_accesses(const google::protobuf::RepeatedPtrField<v1::Access>& accesses) {
    if (accesses.empty()) return;
    std::string text;
    for (const v1::Access& a : accesses) {
      if (!text.empty()) text += "; ";
      text += std::string(mode_name(a.mode())) + " ";
      uint64_t address = a.address();
      if (a.region()) {
        text += tables_.region_label(a.region());
        if (a.offset()) text += "+" + std::to_string(a.offset());
        text += " ";
        if (const v1::Region* r = tables_.region(a.region())) address = r->base() + a.offset();
      }
      text += hex(address) + " " + format_bytes(a.size());
    }
    add_string("accesses", std::move(text));
  }

  void add_region(uint32_t id) {
    add_string("region", tables_.region_label(id));
    if (const v1::Region* r = tables_.region(id)) {
      add_pointer("base", r->base());
      add_uint("size", r->size());
    }
  }

  void add_uint(std::string_view key, uint64_t v) { slice_.args.push_back({key, Arg::Type::kUint, v, {}}); }
  void add_bool(std::string_view key, bool v) { slice_.args.push_back({key, Arg::Type::kBool, v, {}}); }
  void add_pointer(std::string_view key, uint64_t v) {
    slice_.args.push_back({key, Arg::Type::kPointer, v, {}});
  }
  void add_string(std::string_view key, std::string v) {
    slice_.args.push_back({key, Arg::Type::kString, 0, std::move(v)});
  }

  Sink& sink_;
  const std::vector<uint32_t> waits_per_record_;
  TraceTables tables_;
  OpPlacer placer_;
  std::unordered_map<uint32_t, std::string> streams_, threads_;  // lane names
  std::unordered_set<uint32_t> devices_;
  bool host_announced_ = false;
  std::unordered_map<uint32_t, Record> records_;  // by event id
  uint64_t records_seen_ = 0;
  uint64_t next_flow_ = 1;
  Slice slice_;  // reused: its vectors keep their capacity
  ExportStats stats_;
};

}  // namespace

Result<ExportStats> walk_trace(const std::string& in_path, Sink& sink, const Progress& progress) {
  auto counts = count_waits(in_path, progress);
  if (!counts) return counts.error();
  auto source = TraceSource::open_unchecked(in_path);  // count_waits validated it
  if (!source) return source.error();
  Walker walker(sink, std::move(*counts));
  sink.begin();
  for (;;) {
    auto more = source->read();
    if (!more) return more.error();
    if (!*more) break;
    const v1::Chunk& chunk = **more;
    walker.add_chunk(chunk);
    if (!sink.out().ok()) return write_error();
    if (progress) progress("exporting", source->position(), source->size());
  }
  sink.end();
  if (!sink.out().flush()) return write_error();
  ExportStats stats = walker.stats();
  stats.bytes = sink.out().bytes();
  return stats;
}

Result<ExportStats> export_to_file(const std::string& in_path, const std::string& out_path,
                                   StreamExporter exporter, const Progress& progress) {
  if (auto usable = check_output(out_path, {in_path}); !usable) return usable.error();
  auto file = OutputFile::create(out_path);
  if (!file) return file.error();
  std::ofstream out(file->temp_path(), std::ios::binary | std::ios::trunc);
  if (!out) return Error{"cannot create: " + std::string(std::strerror(errno)), {}, out_path};
  auto stats = exporter(in_path, out, progress);
  if (!stats) {
    Error error = stats.error();
    if (error.file.empty()) error.file = out_path;  // only output errors lack a file
    return error;
  }
  out.close();
  if (!out) return Error{"cannot write the output", {}, out_path};
  if (auto moved = file->commit(); !moved) return moved.error();
  return stats;
}

}  // namespace racetrack::exporting

namespace racetrack {

ExportFormat export_format_for(const std::string& out_path) {
  return std::filesystem::path(out_path).extension() == ".json" ? ExportFormat::kChrome
                                                                : ExportFormat::kPerfetto;
}

}  // namespace racetrack
