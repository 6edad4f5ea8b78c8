// Perfetto protobuf: one TrackDescriptor per track (a stream's parent is its
// device's track, a host thread's and an NVTX track's the host track, an
// overlap track's its lane's), a SLICE_BEGIN/SLICE_END pair per slice,
// flows as flow_ids / terminating_flow_ids, hazard marks as instants. Each
// TracePacket is appended as one `Trace.packet` field, so the file is a
// valid Trace.
#include <algorithm>
#include <limits>
#include <ostream>
#include <utility>

#include "export_common.h"
#include "perfetto_trace.pb.h"

namespace racetrack::exporting {
namespace {

namespace pf = ::racetrack::perfetto;

// Track uuids: the kind in the top byte, then the overlap track's number,
// the entity id in the low 32 bits.
constexpr uint64_t kDeviceTrack = uint64_t{1} << 56;
constexpr uint64_t kHostTrack = uint64_t{2} << 56;
constexpr uint64_t kProcessTrack = uint64_t{4} << 56;

uint64_t uuid_of(const Track& t) {
  return (uint64_t{3} << 56) + t.key();
}

int32_t rank(uint64_t v) {
  return static_cast<int32_t>(std::min<uint64_t>(v, std::numeric_limits<int32_t>::max()));
}

// A bijection of 64-bit ids (splitmix64's finaliser): each frame's salt
// moves its ids apart from every other frame's.
uint64_t mix(uint64_t v) {
  v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ull;
  v = (v ^ (v >> 27)) * 0x94D049BB133111EBull;
  return v ^ (v >> 31);
}

class PerfettoSink : public Sink {
 public:
  PerfettoSink(std::ostream& out, PerfettoFrame frame) : Sink(out), frame_(std::move(frame)) {}

  void begin() override {
    if (frame_.pid <= 0) return;
    packet_.Clear();
    pf::TrackDescriptor& d = *packet_.mutable_track_descriptor();
    d.set_uuid(id(kProcessTrack));
    d.mutable_process()->set_pid(frame_.pid);
    d.mutable_process()->set_process_name(frame_.process_name);
    if (!frame_.description.empty()) d.set_description(frame_.description);
    d.set_child_ordering(pf::TrackDescriptor::EXPLICIT);
    write_packet();
  }

  void device(uint32_t ordinal, const std::string& name) override {
    track(kDeviceTrack | ordinal, name, 0, 0);
  }
  void host(const std::string& name) override { track(kHostTrack, name, 0, 0); }
  void stream(uint32_t id, uint32_t device, const std::string& name) override {
    track(uuid_of({TrackKind::kStream, id, 0}), name, kDeviceTrack | device, rank(id));
  }
  void thread(uint32_t id, const std::string& name) override {
    track(uuid_of({TrackKind::kThread, id, 0}), name, kHostTrack, rank(2 * uint64_t{id}));
  }

  void track(const Track& t, const std::string& name) override {
    Track lane = t;
    lane.sub = 0;
    uint64_t parent = t.sub ? uuid_of(lane) : 0;  // an overlap track sits under its lane
    int32_t order = rank(t.sub);
    if (t.kind == TrackKind::kNvtx) {
      parent = kHostTrack;  // right after its thread
      order = rank(2 * uint64_t{t.id} + 1);
    }
    const bool hazards = t.kind == TrackKind::kHazards && !t.sub;
    track(uuid_of(t), name, parent, order,
          hazards ? "The hazards racetrack check found: a slice per hazard from its first op's start to its "
                    "second op's end, with the explanation and the fix; flows lead to both ops."
                  : "");
  }

  void slice(const Slice& s) override {
    open_slice(s);
    close_slice(s.track, s.end_ns);
  }

  void open_slice(const Slice& s) override {
    packet_.Clear();
    packet_.set_timestamp(time(s.start_ns));
    pf::TrackEvent& begin = *packet_.mutable_track_event();
    begin.set_type(pf::TrackEvent::TYPE_SLICE_BEGIN);
    begin.set_track_uuid(id(uuid_of(s.track)));
    begin.set_name(s.name);
    begin.add_categories(std::string(s.category));
    for (const Arg& arg : s.args) annotate(*begin.add_debug_annotations(), arg);
    for (uint64_t flow : s.flows_out) begin.add_flow_ids(id(flow));
    // A flow id on two slices' flow_ids is one flow from the earlier to the
    // later, whichever is written first.
    for (uint64_t flow : s.shared_flows) begin.add_flow_ids(id(flow));
    if (s.flow_in) begin.add_terminating_flow_ids(id(s.flow_in));
    write_packet();
  }

  void close_slice(const Track& t, int64_t end_ns) override {
    packet_.Clear();
    packet_.set_timestamp(time(end_ns));
    pf::TrackEvent& end = *packet_.mutable_track_event();
    end.set_type(pf::TrackEvent::TYPE_SLICE_END);
    end.set_track_uuid(id(uuid_of(t)));
    write_packet();
  }

  void instant(const Track& t, int64_t at_ns, const std::string& name,
               const std::vector<Arg>& args) override {
    packet_.Clear();
    packet_.set_timestamp(time(at_ns));
    pf::TrackEvent& e = *packet_.mutable_track_event();
    e.set_type(pf::TrackEvent::TYPE_INSTANT);
    e.set_track_uuid(id(uuid_of(t)));
    e.set_name(name);
    e.add_categories("hazard");
    for (const Arg& arg : args) annotate(*e.add_debug_annotations(), arg);
    write_packet();
  }

 private:
  void track(uint64_t uuid, const std::string& name, uint64_t parent, int32_t order,
             std::string_view description = {}) {
    packet_.Clear();
    pf::TrackDescriptor& d = *packet_.mutable_track_descriptor();
    d.set_uuid(id(uuid));
    d.set_name(name);
    if (parent)
      d.set_parent_uuid(id(parent));
    else if (frame_.pid > 0)
      d.set_parent_uuid(id(kProcessTrack));
    if (!description.empty()) d.set_description(std::string(description));
    d.set_sibling_order_rank(order);
    d.set_child_ordering(pf::TrackDescriptor::EXPLICIT);
    // Our names are unique, but two user streams could share one: never
    // let the UI fold them into one track.
    d.set_sibling_merge_behavior(pf::TrackDescriptor::SIBLING_MERGE_BEHAVIOR_NONE);
    write_packet();
  }

  static void annotate(pf::DebugAnnotation& a, const Arg& arg) {
    a.set_name(std::string(arg.key));
    switch (arg.type) {
      case Arg::Type::kUint: a.set_uint_value(arg.number); break;
      case Arg::Type::kBool: a.set_bool_value(arg.number != 0); break;
      case Arg::Type::kPointer: a.set_pointer_value(arg.number); break;
      case Arg::Type::kString: a.set_string_value(arg.text); break;
    }
  }

  // The salt is mixed first: a plain xor would map one trace's stream 1 onto
  // another's stream 3.
  uint64_t id(uint64_t v) const { return frame_.salt ? mix(v ^ mix(frame_.salt)) : v; }
  uint64_t time(int64_t ns) const { return static_cast<uint64_t>(ns + frame_.offset_ns); }

  // Field 1 of Trace, length-delimited: tag 0x0A, varint length, bytes.
  void write_packet() {
    packet_.set_trusted_packet_sequence_id(frame_.sequence_id);
    if (first_) {
      // No interning is used; declaring the state cleared keeps readers that
      // insist on valid incremental state from skipping the sequence.
      packet_.set_sequence_flags(pf::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
      first_ = false;
    }
    bytes_.clear();
    packet_.SerializeToString(&bytes_);
    char header[11];
    size_t n = 0;
    header[n++] = 0x0A;
    for (uint64_t v = bytes_.size();; v >>= 7) {
      if (v < 0x80) {
        header[n++] = static_cast<char>(v);
        break;
      }
      header[n++] = static_cast<char>((v & 0x7F) | 0x80);
    }
    out_.write(std::string_view(header, n));
    out_.write(bytes_);
  }

  const PerfettoFrame frame_;
  pf::TracePacket packet_;  // reused: keeps its allocations
  std::string bytes_;
  bool first_ = true;
};

}  // namespace

std::unique_ptr<Sink> make_perfetto_sink(std::ostream& out, PerfettoFrame frame) {
  return std::make_unique<PerfettoSink>(out, std::move(frame));
}

}  // namespace racetrack::exporting
