// Perfetto protobuf: one TrackDescriptor per lane (a stream's parent is its
// device's track, a host thread's the host track), a SLICE_BEGIN/SLICE_END
// pair per op, flows as flow_ids / terminating_flow_ids. Each TracePacket is
// appended as one `Trace.packet` field, so the file is a valid Trace.
#include <ostream>

#include "export_common.h"
#include "perfetto_trace.pb.h"

namespace racetrack {
namespace {

namespace pf = ::racetrack::perfetto;

// Any fixed non-zero id: all packets are one sequence.
constexpr uint32_t kSequenceId = 1;

// Track uuids: the kind in the high bits, the entity id in the low 32.
constexpr uint64_t kDeviceTrack = 1ull << 40;
constexpr uint64_t kHostTrack = 2ull << 40;
constexpr uint64_t kStreamTrack = 3ull << 40;
constexpr uint64_t kThreadTrack = 4ull << 40;

uint64_t lane_uuid(LaneKind kind, uint32_t id) {
  return (kind == LaneKind::kStream ? kStreamTrack : kThreadTrack) | id;
}

class PerfettoSink : public exporting::Sink {
 public:
  using Sink::Sink;

  void device(uint32_t ordinal, const std::string& name) override { track(kDeviceTrack | ordinal, name, 0); }
  void host(const std::string& name) override { track(kHostTrack, name, 0); }
  void stream(uint32_t id, uint32_t device, const std::string& name) override {
    track(kStreamTrack | id, name, kDeviceTrack | device);
  }
  void thread(uint32_t id, const std::string& name) override { track(kThreadTrack | id, name, kHostTrack); }

  void slice(const exporting::Slice& s) override {
    const uint64_t uuid = lane_uuid(s.lane, s.lane_id);
    packet_.Clear();
    packet_.set_timestamp(static_cast<uint64_t>(s.start_ns));
    pf::TrackEvent& begin = *packet_.mutable_track_event();
    begin.set_type(pf::TrackEvent::TYPE_SLICE_BEGIN);
    begin.set_track_uuid(uuid);
    begin.set_name(s.name);
    begin.add_categories(std::string(s.category));
    for (const exporting::Arg& arg : s.args) annotate(*begin.add_debug_annotations(), arg);
    for (uint64_t id : s.flows_out) begin.add_flow_ids(id);
    if (s.flow_in) begin.add_terminating_flow_ids(s.flow_in);
    write_packet();

    packet_.Clear();
    packet_.set_timestamp(static_cast<uint64_t>(s.end_ns));
    pf::TrackEvent& end = *packet_.mutable_track_event();
    end.set_type(pf::TrackEvent::TYPE_SLICE_END);
    end.set_track_uuid(uuid);
    write_packet();
  }

 private:
  void track(uint64_t uuid, const std::string& name, uint64_t parent) {
    packet_.Clear();
    pf::TrackDescriptor& d = *packet_.mutable_track_descriptor();
    d.set_uuid(uuid);
    d.set_name(name);
    if (parent) d.set_parent_uuid(parent);
    write_packet();
  }

  static void annotate(pf::DebugAnnotation& a, const exporting::Arg& arg) {
    a.set_name(std::string(arg.key));
    switch (arg.type) {
      case exporting::Arg::Type::kUint: a.set_uint_value(arg.number); break;
      case exporting::Arg::Type::kBool: a.set_bool_value(arg.number != 0); break;
      case exporting::Arg::Type::kPointer: a.set_pointer_value(arg.number); break;
      case exporting::Arg::Type::kString: a.set_string_value(arg.text); break;
    }
  }

  // Field 1 of Trace, length-delimited: tag 0x0A, varint length, bytes.
  void write_packet() {
    packet_.set_trusted_packet_sequence_id(kSequenceId);
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

  pf::TracePacket packet_;  // reused: keeps its allocations
  std::string bytes_;
  bool first_ = true;
};

}  // namespace

Result<ExportStats> export_perfetto(const std::string& in_path, std::ostream& out, const Progress& progress) {
  PerfettoSink sink(out);
  return exporting::walk_trace(in_path, sink, progress);
}

Result<ExportStats> export_perfetto(const std::string& in_path, const std::string& out_path,
                                    const Progress& progress) {
  return exporting::export_to_file(in_path, out_path, &export_perfetto, progress);
}

}  // namespace racetrack
