// Chrome trace JSON: an `X` event per op on (pid, tid) = (device, stream) or
// (host, thread), `M` process_name / thread_name events naming the lanes, and
// flows v2 (bind_id with flow_out / flow_in) on the X events themselves.
#include <charconv>
#include <ostream>
#include <unordered_map>

#include "export_common.h"
#include "racetrack/traces/describe.h"

namespace racetrack {
namespace {

// pid 0 is the idle process to Perfetto, so numbering starts at 1.
constexpr uint64_t kHostPid = 1;
uint64_t device_pid(uint32_t ordinal) {
  return 2 + uint64_t{ordinal};
}
// Perfetto keys threads by tid alone, so stream and host-thread tids must
// not collide: streams keep their id, host threads start far above.
constexpr uint64_t kHostTidBase = 1'000'000'000;
uint64_t lane_tid(LaneKind kind, uint32_t id) {
  return kind == LaneKind::kStream ? id : kHostTidBase + id;
}

void append_uint(std::string& out, uint64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// ns as µs with three decimals, exactly (no floating point).
void append_us(std::string& out, int64_t ns) {
  const uint64_t v = static_cast<uint64_t>(ns);  // the walker keeps times >= 0
  append_uint(out, v / 1000);
  const uint64_t frac = v % 1000;
  out += '.';
  out += static_cast<char>('0' + frac / 100);
  out += static_cast<char>('0' + frac / 10 % 10);
  out += static_cast<char>('0' + frac % 10);
}

void append_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\\u00";
          out += kHex[(c >> 4) & 0xF];
          out += kHex[c & 0xF];
        } else {
          out += c;  // UTF-8 passes through (protobuf strings are valid UTF-8)
        }
    }
  }
  out += '"';
}

class ChromeSink : public exporting::Sink {
 public:
  using Sink::Sink;

  void begin() override { out_.write("{\"traceEvents\":[\n"); }
  void end() override { out_.write("\n]}\n"); }

  // A process is named when its first lane is, with that lane's tid: an M
  // event without a tid would make Perfetto invent a thread tid == pid.
  void device(uint32_t ordinal, const std::string& name) override { unnamed_[device_pid(ordinal)] = name; }
  void host(const std::string& name) override { unnamed_[kHostPid] = name; }
  void stream(uint32_t id, uint32_t device, const std::string& name) override {
    stream_pids_[id] = device_pid(device);
    lane(device_pid(device), lane_tid(LaneKind::kStream, id), name);
  }
  void thread(uint32_t id, const std::string& name) override {
    lane(kHostPid, lane_tid(LaneKind::kThread, id), name);
  }

  void slice(const exporting::Slice& s) override {
    start_event("X", s.name);
    line_ += ",\"cat\":";
    append_string(line_, s.category);
    pid_tid(s.lane == LaneKind::kStream ? pid_of_stream(s.lane_id) : kHostPid,
            lane_tid(s.lane, s.lane_id));
    line_ += ",\"ts\":";
    append_us(line_, s.start_ns);
    line_ += ",\"dur\":";
    append_us(line_, s.end_ns - s.start_ns);
    line_ += ",\"args\":{";
    bool first = true;
    for (const exporting::Arg& arg : s.args) {
      if (!first) line_ += ',';
      first = false;
      append_string(line_, arg.key);
      line_ += ':';
      switch (arg.type) {
        case exporting::Arg::Type::kUint: append_uint(line_, arg.number); break;
        case exporting::Arg::Type::kBool: line_ += arg.number ? "true" : "false"; break;
        case exporting::Arg::Type::kPointer: append_string(line_, hex(arg.number)); break;
        case exporting::Arg::Type::kString: append_string(line_, arg.text); break;
      }
    }
    line_ += '}';
    // One bind_id per event, so the record's number stands for all its
    // pairs; Perfetto keeps a v2 flow open after flow_in, so each wait gets
    // its own arrow.
    if (s.record_group) {
      line_ += ",\"bind_id\":";
      append_uint(line_, s.record_group);
      line_ += s.flow_in ? ",\"flow_in\":true" : ",\"flow_out\":true";
    }
    line_ += '}';
    out_.write(line_);
  }

 private:
  void lane(uint64_t pid, uint64_t tid, const std::string& name) {
    if (auto it = unnamed_.find(pid); it != unnamed_.end()) {
      metadata("process_name", pid, tid, it->second);
      unnamed_.erase(it);
    }
    metadata("thread_name", pid, tid, name);
  }

  void metadata(std::string_view what, uint64_t pid, uint64_t tid, const std::string& name) {
    start_event("M", what);
    pid_tid(pid, tid);
    line_ += ",\"args\":{\"name\":";
    append_string(line_, name);
    line_ += "}}";
    out_.write(line_);
  }

  void start_event(std::string_view phase, std::string_view name) {
    line_.clear();
    if (!first_event_) line_ += ",\n";
    first_event_ = false;
    line_ += "{\"ph\":\"";
    line_ += phase;
    line_ += "\",\"name\":";
    append_string(line_, name);
  }

  void pid_tid(uint64_t pid, uint64_t tid) {
    line_ += ",\"pid\":";
    append_uint(line_, pid);
    line_ += ",\"tid\":";
    append_uint(line_, tid);
  }

  uint64_t pid_of_stream(uint32_t id) const {
    auto it = stream_pids_.find(id);
    return it == stream_pids_.end() ? device_pid(0) : it->second;
  }

  std::unordered_map<uint64_t, std::string> unnamed_;   // pid -> process name
  std::unordered_map<uint32_t, uint64_t> stream_pids_;  // stream id -> pid
  std::string line_;
  bool first_event_ = true;
};

}  // namespace

Result<ExportStats> export_chrome(const std::string& in_path, std::ostream& out, const Progress& progress) {
  ChromeSink sink(out);
  return exporting::walk_trace(in_path, sink, progress);
}

Result<ExportStats> export_chrome(const std::string& in_path, const std::string& out_path,
                                  const Progress& progress) {
  return exporting::export_to_file(in_path, out_path, &export_chrome, progress);
}

}  // namespace racetrack
