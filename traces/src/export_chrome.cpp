// Chrome trace JSON: an `X` event per slice on (pid, tid) = (device, stream)
// or (host, thread), other tracks (overlap, NVTX, hazards) as threads of
// their own, `M` process_name / thread_name events naming them all, record
// -> wait flows v2 (bind_id with flow_out / flow_in) on the X events
// themselves, hazard flows v1 (`s` / `f` events) and marks (`i` events).
#include <charconv>
#include <ostream>
#include <unordered_map>

#include "export_common.h"
#include "export_hazards.h"
#include "racetrack/traces/describe.h"

namespace racetrack::exporting {
namespace {

// pid 0 is the idle process to Perfetto, so numbering starts at 1.
constexpr uint64_t kHostPid = 1;
uint64_t device_pid(uint32_t ordinal) {
  return 2 + uint64_t{ordinal};
}
constexpr uint64_t kHazardPid = 1'000'000;
// Perfetto keys threads by tid alone, so tids must not collide: streams
// keep their id, host threads start far above, other tracks above that, in
// the order they come (Perfetto reads tids as 32-bit).
constexpr uint64_t kHostTidBase = 1'000'000'000;
constexpr uint64_t kExtraTidBase = 2'000'000'000;

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

class ChromeSink : public Sink {
 public:
  using Sink::Sink;

  void begin() override { out_.write("{\"traceEvents\":[\n"); }
  void end() override { out_.write("\n]}\n"); }

  // A process is named when its first lane is, with that lane's tid: an M
  // event without a tid would make Perfetto invent a thread tid == pid.
  void device(uint32_t ordinal, const std::string& name) override { unnamed_[device_pid(ordinal)] = name; }
  void host(const std::string& name) override { unnamed_[kHostPid] = name; }
  void stream(uint32_t id, uint32_t device, const std::string& name) override {
    lane({TrackKind::kStream, id, 0}, device_pid(device), id, name);
  }
  void thread(uint32_t id, const std::string& name) override {
    lane({TrackKind::kThread, id, 0}, kHostPid, kHostTidBase + id, name);
  }

  void track(const Track& t, const std::string& name) override {
    uint64_t pid = kHostPid;
    if (t.kind == TrackKind::kStream) pid = where({TrackKind::kStream, t.id, 0}).first;
    if (t.kind == TrackKind::kHazards) {
      pid = kHazardPid;
      if (!t.sub) unnamed_[kHazardPid] = "Hazards (racetrack check)";
    }
    lane(t, pid, kExtraTidBase + extra_tracks_++, name);
  }

  void slice(const Slice& s) override {
    event("X", s.name, s.category, s.track, s.start_ns);
    line_ += ",\"dur\":";
    append_us(line_, s.end_ns - s.start_ns);
    append_args(s.args);
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

  // B / E events: Perfetto's importer sorts E before other events of one
  // time, and B events of one time in file order, outer range first.
  void open_slice(const Slice& s) override {
    event("B", s.name, s.category, s.track, s.start_ns);
    append_args(s.args);
    line_ += '}';
    out_.write(line_);
  }

  void close_slice(const Track& t, int64_t end_ns) override {
    start_event("E", "");
    pid_tid(where(t));
    line_ += ",\"ts\":";
    append_us(line_, end_ns);
    line_ += '}';
    out_.write(line_);
  }

  void instant(const Track& t, int64_t at_ns, const std::string& name,
               const std::vector<Arg>& args) override {
    event("i", name, "hazard", t, at_ns);
    line_ += ",\"s\":\"t\"";  // scoped to its thread
    append_args(args);
    line_ += '}';
    out_.write(line_);
  }

  // Flows v1, each end bound to the slice enclosing it ("bp":"e" for the
  // end): an event has one bind_id, and an op may be in many hazards.
  void flow(uint64_t id, const Track& from, int64_t from_ns, const Track& to, int64_t to_ns) override {
    flow_event("s", id, from, from_ns);
    flow_event("f", id, to, to_ns);
  }

 private:
  void lane(const Track& t, uint64_t pid, uint64_t tid, const std::string& name) {
    lanes_[t.key()] = {pid, tid};
    if (auto it = unnamed_.find(pid); it != unnamed_.end()) {
      metadata("process_name", pid, tid, it->second);
      unnamed_.erase(it);
    }
    metadata("thread_name", pid, tid, name);
  }

  std::pair<uint64_t, uint64_t> where(const Track& t) const {
    auto it = lanes_.find(t.key());
    return it == lanes_.end() ? std::pair<uint64_t, uint64_t>{device_pid(0), t.id} : it->second;
  }

  void flow_event(std::string_view phase, uint64_t id, const Track& t, int64_t at_ns) {
    event(phase, "hazard", "hazard", t, at_ns);
    line_ += ",\"id\":";
    append_uint(line_, id - kHazardFlowBase + 1);
    if (phase == "f") line_ += ",\"bp\":\"e\"";
    line_ += '}';
    out_.write(line_);
  }

  // Starts line_ with an event's phase, name, category, lane and time.
  void event(std::string_view phase, std::string_view name, std::string_view category, const Track& t,
             int64_t at_ns) {
    start_event(phase, name);
    line_ += ",\"cat\":";
    append_string(line_, category);
    pid_tid(where(t));
    line_ += ",\"ts\":";
    append_us(line_, at_ns);
  }

  void append_args(const std::vector<Arg>& args) {
    line_ += ",\"args\":{";
    bool first = true;
    for (const Arg& arg : args) {
      if (!first) line_ += ',';
      first = false;
      append_string(line_, arg.key);
      line_ += ':';
      switch (arg.type) {
        case Arg::Type::kUint: append_uint(line_, arg.number); break;
        case Arg::Type::kBool: line_ += arg.number ? "true" : "false"; break;
        case Arg::Type::kPointer: append_string(line_, hex(arg.number)); break;
        case Arg::Type::kString: append_string(line_, arg.text); break;
      }
    }
    line_ += '}';
  }

  void metadata(std::string_view what, uint64_t pid, uint64_t tid, const std::string& name) {
    start_event("M", what);
    pid_tid({pid, tid});
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

  void pid_tid(std::pair<uint64_t, uint64_t> lane) {
    line_ += ",\"pid\":";
    append_uint(line_, lane.first);
    line_ += ",\"tid\":";
    append_uint(line_, lane.second);
  }

  std::unordered_map<uint64_t, std::string> unnamed_;                  // pid -> process name
  std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> lanes_;  // Track::key -> (pid, tid)
  uint64_t extra_tracks_ = 0;
  std::string line_;
  bool first_event_ = true;
};

}  // namespace

std::unique_ptr<Sink> make_chrome_sink(std::ostream& out) {
  return std::make_unique<ChromeSink>(out);
}

}  // namespace racetrack::exporting
