#include "export_common.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "export_hazards.h"
#include "export_nvtx.h"
#include "racetrack/traces/describe.h"
#include "racetrack/traces/extents.h"
#include "racetrack/traces/output_file.h"
#include "racetrack/traces/timeline.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::exporting {
namespace {

constexpr uint32_t kOutsideWindow = ~0u;

Error write_error() {
  return make_error("cannot write the output");
}

// The ops an export writes: from_seq <= seq <= to_seq, at most max_ops.
class WindowFilter {
 public:
  explicit WindowFilter(const ExportOptions& o) : from_(o.from_seq), to_(o.to_seq), max_(o.max_ops) {}
  bool admit(uint64_t seq) {
    if (seq < from_ || seq > to_ || taken_ >= max_) return false;
    ++taken_;
    return true;
  }

 private:
  uint64_t from_, to_, max_;
  uint64_t taken_ = 0;
};

std::string window_text(const ExportOptions& o) {
  std::string text = "no op";
  if (o.from_seq) text += " from seq " + std::to_string(o.from_seq);
  if (o.to_seq != ExportOptions{}.to_seq) text += " to seq " + std::to_string(o.to_seq);
  return text + " to export";
}

// Pass 1: the window, how many waits bind to each record in it (in record
// order; a wait binds to the latest record of its event before it in seq
// order), and where the hazards' ops go.
struct Survey {
  ExportPlan plan;
  std::vector<uint32_t> waits_per_record;
};

Result<Survey> survey(const std::string& path, const ExportOptions& options, HazardLayout& hazards) {
  auto source = TraceSource::open(path);
  if (!source) return source.error();
  Survey s;
  WindowFilter window(options);
  OpPlacement placement;
  std::unordered_map<uint32_t, uint32_t> latest;  // event -> index in waits_per_record
  for (;;) {
    auto more = source->read();
    if (!more) return more.error();
    if (!*more) break;
    if (options.progress) options.progress("matching records to waits", source->position(), source->size());
    for (const v1::Op& op : (**more).ops()) {
      ++s.plan.trace_ops;
      const bool in = window.admit(op.seq());
      const Placement p = placement.place(op, in);
      if (in) {
        if (!s.plan.ops++) s.plan.first_seq = op.seq();
        s.plan.last_seq = op.seq();
        hazards.note(op.seq(), p);
      }
      if (op.has_record()) {
        latest[op.record().event()] = in ? static_cast<uint32_t>(s.waits_per_record.size()) : kOutsideWindow;
        if (in) s.waits_per_record.push_back(0);
      } else if (op.has_wait() && in) {
        if (auto it = latest.find(op.wait().event()); it != latest.end() && it->second != kOutsideWindow)
          ++s.waits_per_record[it->second];
      }
    }
  }
  if (!s.plan.ops) return Error{window_text(options), {}, path};
  hazards.settle();
  return s;
}

class Walker {
 public:
  Walker(Sink& sink, const Survey& survey, const HazardLayout& hazards)
      : sink_(sink), survey_(survey), hazards_(hazards) {}

  // The hazard track and its slices, before any op.
  void begin() {
    if (hazards_.shown().empty()) return;
    sink_.track({TrackKind::kHazards, 0, 0}, "Hazards (racetrack check)");
    for (uint32_t k = 1; k < hazards_.tracks(); ++k)
      sink_.track({TrackKind::kHazards, 0, k}, "Hazards overlap " + std::to_string(k));
    for (const ShownHazard& h : hazards_.shown()) {
      Slice& s = reset_slice();
      s.track = h.track;
      s.start_ns = h.start_ns;
      s.end_ns = h.end_ns;
      s.name = h.hazard->title;
      s.category = "hazard";
      add_uint("hazard", h.hazard->number);
      add_uint("first_seq", h.hazard->first_seq);
      add_uint("second_seq", h.hazard->second_seq);
      for (const auto& [key, text] : h.hazard->args) add_string(key, text);
      s.shared_flows.push_back(h.first_flow);
      if (h.second_flow) s.shared_flows.push_back(h.second_flow);
      sink_.slice(s);
    }
  }

  // False once past the window: nothing later is written.
  bool add_chunk(const v1::Chunk& chunk) {
    tables_.add(chunk);
    // Announce every lane the trace defines, even those without ops.
    for (uint32_t id = 1; id <= tables_.streams().size(); ++id) stream_lane(id);
    for (uint32_t id = 1; id <= tables_.threads().size(); ++id) thread_lane(id);
    for (const v1::Op& op : chunk.ops()) {
      if (op.seq() > survey_.plan.last_seq) return false;
      add_op(op);
    }
    return true;
  }

  // Closes the NVTX ranges; the hazards' flows and the marks on their ops.
  void finish() {
    nvtx_.finish(nvtx_changes_);
    write_nvtx();
    for (const ShownHazard& h : hazards_.shown()) {
      const HazardOp& a = h.first.start_ns <= h.second.start_ns ? h.first : h.second;
      const HazardOp& b = &a == &h.first ? h.second : h.first;
      if (h.pair_flow) sink_.flow(h.pair_flow, a.track, a.start_ns, b.track, b.start_ns);
      sink_.flow(h.first_flow, h.track, h.start_ns, h.first.track, h.first.start_ns);
      if (h.second_flow) sink_.flow(h.second_flow, h.track, h.start_ns, h.second.track, h.second.start_ns);
    }
    // After the flows: Perfetto's JSON importer binds a flow event to the
    // innermost slice open at its time, and an instant there would be it.
    for (const ShownHazard& h : hazards_.shown()) {
      slice_.args.clear();
      add_uint("hazard", h.hazard->number);
      add_string("title", h.hazard->title);
      const std::string name = "hazard [" + std::to_string(h.hazard->number) + "] ";
      sink_.instant(h.first.track, h.first.start_ns, name + "first", slice_.args);
      sink_.instant(h.second.track, h.second.start_ns, name + "second", slice_.args);
    }
    stats_.hazards = hazards_.shown().size();
    stats_.hazards_outside = hazards_.left_out();
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

  Slice& reset_slice() {
    Slice& s = slice_;
    s.args.clear();
    s.flows_out.clear();
    s.flow_in = 0;
    s.record_group = 0;
    s.shared_flows.clear();
    return s;
  }

  void add_op(const v1::Op& op) {
    const bool in = op.seq() >= survey_.plan.first_seq;
    const Placement p = placement_.place(op, in);
    if (op.has_record() && !in) records_[op.record().event()] = Record{};  // waits on it get no flow
    if (!in) return;

    Slice& s = reset_slice();
    const std::string& lane =
        p.track.kind == TrackKind::kStream ? stream_lane(op.stream()) : thread_lane(op.thread());
    if (p.opened_track) {
      sink_.track(p.track, lane + " overlap " + std::to_string(p.track.sub));
      ++stats_.overlap_tracks;
    }
    s.track = p.track;
    s.start_ns = p.start_ns;
    s.end_ns = p.end_ns;
    Record* bound = nullptr;
    if (op.has_wait())
      if (auto it = records_.find(op.wait().event()); it != records_.end()) bound = &it->second;

    s.name = op_title(op, tables_);
    s.category = op_kind_name(op_kind(op));
    add_common_args(op, p);
    add_kind_args(op);
    if (const OpHazardMarks* marks = hazards_.marks(op.seq())) {
      add_string("hazards", marks->label);
      s.shared_flows = marks->flows;
    }

    if (op.has_record()) {
      Record& r = records_[op.record().event()];
      r.group = ++records_seen_;
      r.seq = op.seq();
      const auto& waits = survey_.waits_per_record;
      const uint32_t count = r.group <= waits.size() ? waits[r.group - 1] : 0;
      r.next_flow = next_flow_;
      r.end_flow = next_flow_ + count;
      next_flow_ += count;
      for (uint64_t id = r.next_flow; id < r.end_flow; ++id) s.flows_out.push_back(id);
      if (count) s.record_group = r.group;
    } else if (bound && bound->next_flow < bound->end_flow) {
      s.flow_in = bound->next_flow++;
      s.record_group = bound->group;
      add_uint("record_seq", bound->seq);
      ++stats_.flows;
    }
    sink_.slice(s);
    ++stats_.slices;

    nvtx_.add(op, tables_, nvtx_changes_);
    write_nvtx();
  }

  void write_nvtx() {
    for (const NvtxClose& c : nvtx_changes_.closed)
      sink_.close_slice({TrackKind::kNvtx, c.thread, 0}, c.end_ns);
    for (NvtxOpen& o : nvtx_changes_.opened) {
      const Track track{TrackKind::kNvtx, o.thread, 0};
      if (nvtx_threads_.insert(o.thread).second) sink_.track(track, thread_lane(o.thread) + " NVTX");
      Slice& s = reset_slice();
      s.track = track;
      s.start_ns = s.end_ns = o.start_ns;
      s.name = std::move(o.name);
      s.category = "nvtx";
      add_string("path", std::move(o.path));
      add_uint("first_seq", o.first_seq);
      sink_.open_slice(s);
      ++stats_.nvtx_ranges;
    }
    nvtx_changes_.closed.clear();
    nvtx_changes_.opened.clear();
  }

  void add_common_args(const v1::Op& op, const Placement& p) {
    add_uint("seq", op.seq());
    add_string("timing", p.timing == Timing::kDevice ? "device"
                         : p.timing == Timing::kHost ? "host"
                                                     : "estimated");
    if (p.shifted_ns) add_uint("shifted_ns", p.shifted_ns);
    if (p.track.kind == TrackKind::kStream) {
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
        if (c.has_pitched()) add_string("shape", describe_shape(c.pitched(), true));
        if (c.symbol()) add_string("symbol", std::string(tables_.string(c.symbol())));
        break;
      }
      case v1::Op::kMemset:
        add_uint("bytes", op.memset().bytes());
        add_pointer("dst", op.memset().dst());
        add_uint("value", op.memset().value());
        if (op.memset().has_pitched()) add_string("shape", describe_shape(op.memset().pitched(), false));
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
        if (const RegionFacts* r = tables_.region_facts(a.region())) address = r->base + a.offset();
      }
      text += hex(address) + " " + format_bytes(a.size());
    }
    add_string("accesses", std::move(text));
  }

  void add_region(uint32_t id) {
    add_string("region", tables_.region_label(id));
    if (const RegionFacts* r = tables_.region_facts(id)) {
      add_pointer("base", r->base);
      add_uint("size", r->size);
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
  const Survey& survey_;
  const HazardLayout& hazards_;
  TraceTables tables_;
  OpPlacement placement_;  // as in the survey: same ops, same answers
  NvtxRanges nvtx_;
  NvtxChanges nvtx_changes_;
  std::unordered_map<uint32_t, std::string> streams_, threads_;  // lane names
  std::unordered_set<uint32_t> devices_, nvtx_threads_;
  bool host_announced_ = false;
  std::unordered_map<uint32_t, Record> records_;  // by event id
  uint64_t records_seen_ = 0;
  uint64_t next_flow_ = 1;
  Slice slice_;  // reused: its vectors keep their capacity
  ExportStats stats_;
};

}  // namespace

Result<ExportStats> walk_trace(const std::string& in_path, const ExportOptions& options, Sink& sink,
                               uint64_t bytes_per_op) {
  HazardLayout hazards(options.hazards);
  auto planned = survey(in_path, options, hazards);
  if (!planned) return planned.error();
  planned->plan.estimated_bytes = planned->plan.ops * bytes_per_op;
  if (options.on_plan) options.on_plan(planned->plan);
  auto source = TraceSource::open_unchecked(in_path);  // the survey validated it
  if (!source) return source.error();
  Walker walker(sink, *planned, hazards);
  sink.begin();
  walker.begin();
  for (;;) {
    auto more = source->read();
    if (!more) return more.error();
    if (!*more) break;
    const bool go_on = walker.add_chunk(**more);
    if (options.progress) options.progress("exporting", source->position(), source->size());
    if (!sink.out().ok()) return write_error();
    if (!go_on) break;
  }
  walker.finish();
  sink.end();
  if (!sink.out().flush()) return write_error();
  ExportStats stats = walker.stats();
  stats.bytes = sink.out().bytes();
  return stats;
}

}  // namespace racetrack::exporting

namespace racetrack {

ExportFormat export_format_for(const std::string& out_path) {
  return std::filesystem::path(out_path).extension() == ".json" ? ExportFormat::kChrome
                                                                : ExportFormat::kPerfetto;
}

Result<ExportStats> export_trace(const std::string& in_path, std::ostream& out, ExportFormat format,
                                 const ExportOptions& options) {
  if (format == ExportFormat::kChrome) {
    auto sink = exporting::make_chrome_sink(out);
    return exporting::walk_trace(in_path, options, *sink, kChromeBytesPerOp);
  }
  auto sink = exporting::make_perfetto_sink(out);
  return exporting::walk_trace(in_path, options, *sink, kPerfettoBytesPerOp);
}

Result<ExportStats> export_trace(const std::string& in_path, const std::string& out_path, ExportFormat format,
                                 const ExportOptions& options) {
  if (auto usable = check_output(out_path, {in_path}); !usable) return usable.error();
  auto file = OutputFile::create(out_path);
  if (!file) return file.error();
  std::ofstream out(file->temp_path(), std::ios::binary | std::ios::trunc);
  if (!out) return Error{"cannot create: " + std::string(std::strerror(errno)), {}, out_path};
  auto stats = export_trace(in_path, out, format, options);
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

Result<ExportStats> export_perfetto(const std::string& in_path, std::ostream& out) {
  return export_trace(in_path, out, ExportFormat::kPerfetto, {});
}
Result<ExportStats> export_perfetto(const std::string& in_path, const std::string& out_path) {
  return export_trace(in_path, out_path, ExportFormat::kPerfetto, {});
}
Result<ExportStats> export_chrome(const std::string& in_path, std::ostream& out) {
  return export_trace(in_path, out, ExportFormat::kChrome, {});
}
Result<ExportStats> export_chrome(const std::string& in_path, const std::string& out_path) {
  return export_trace(in_path, out_path, ExportFormat::kChrome, {});
}

}  // namespace racetrack
