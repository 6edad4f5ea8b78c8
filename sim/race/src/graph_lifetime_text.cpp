#include "racetrack/race/graph_lifetime_text.h"

namespace racetrack::race {
namespace {

std::string quoted(uint32_t label, const TraceTables& t, const char* unnamed) {
  return label ? "\"" + std::string(t.string(label)) + "\"" : std::string(unnamed);
}

std::string op_ref(const HazardSide& s, const TraceTables& t) {
  return "#" + std::to_string(s.seq) + " (" + side_title(s, t) + ")";
}

std::string mode(const HazardSide& s) {
  return s.access.writes ? (s.access.reads ? "reads and writes" : "writes") : "reads";
}

}  // namespace

std::string graph_lifetime_explanation(const Hazard& h, const TraceTables& t) {
  const HazardSide& a = h.first;
  const HazardSide& b = h.second;
  const std::string captured = quoted(b.captured_label, t, "an unnamed region");
  switch (b.graph_lifetime) {
    case GraphLifetime::kCapturedFreed: {
      const std::string owner = b.owner_label ? "the memory now belongs to " + quoted(b.owner_label, t, "")
                                              : std::string("nothing owns the memory now");
      return "graph launch #" + std::to_string(b.seq) + " on " + t.stream_label(b.stream) +
             " (captured at #" + std::to_string(b.captured_seq) + ") " + mode(b) + " " + captured +
             " at its capture-time address, but " + captured + " was freed at #" + std::to_string(a.seq) +
             " and " + owner + ": a replay uses the captured address whatever the ordering";
    }
    case GraphLifetime::kPoolAlias:
      return "graph launch #" + std::to_string(b.seq) + " on " + t.stream_label(b.stream) +
             " (captured at #" + std::to_string(b.captured_seq) + ") " + mode(b) + " " + captured +
             ", an intermediate its capture allocated from the graph's pool, but that memory is now " +
             quoted(b.owner_label, t, "another allocation") + ", used by " + op_ref(a, t) + " on " +
             (a.stream ? t.stream_label(a.stream) : "the host") + ", which is not ordered with the launch";
    case GraphLifetime::kUnjoinedCapture:
      return "the capture on " + t.stream_label(b.stream) + " ended at #" + std::to_string(b.seq) + ", but " +
             op_ref(a, t) + " on " + t.stream_label(a.stream) +
             ", forked into the capture, is not joined back into " + t.stream_label(b.stream) +
             ": cudaStreamEndCapture fails with cudaErrorStreamCaptureUnjoined (or, where the error is "
             "ignored, the graph's consumers do not wait for it)";
    case GraphLifetime::kNone: break;
  }
  return {};
}

Fix graph_lifetime_fix(const Hazard& h, const TraceTables& t) {
  const HazardSide& a = h.first;
  const HazardSide& b = h.second;
  Fix f;
  f.available = true;
  const std::string captured = quoted(b.captured_label, t, "the captured buffer");
  switch (b.graph_lifetime) {
    case GraphLifetime::kCapturedFreed:
      f.edit.before_seq = b.seq;
      f.edit.wait_stream = b.stream;
      f.edit.thread = b.thread;
      f.edit.recapture = true;
      f.text =
          "keep " + captured +
          " alive for the graph's lifetime (free it only after the graph's last launch), or re-capture the "
          "graph after reallocating it, before launch #" +
          std::to_string(b.seq);
      f.pytorch =
          "keep a reference to " + captured +
          " (use the graph's static inputs: static_x.copy_(new_x) before g.replay()), or capture again";
      break;
    case GraphLifetime::kPoolAlias:
      f.edit = FixEdit{a.seq, a.stream, a.thread, b.seq, b.stream, b.thread, h.event_after_first};
      f.text = "record an event on " + t.stream_label(a.stream) + " after " + op_ref(a, t) + " and make " +
               t.stream_label(b.stream) + " wait on it before launch #" + std::to_string(b.seq) +
               ", or keep the graph's pool to the graph while it can be launched";
      f.pytorch = t.stream_label(b.stream) + ".wait_stream(" + t.stream_label(a.stream) +
                  ")  # before g.replay(); or give the graph a private pool (no pool= sharing)";
      break;
    case GraphLifetime::kUnjoinedCapture:
      f.edit = FixEdit{a.seq, a.stream, a.thread, b.seq, b.stream, b.thread, 0};
      f.text = "record an event on " + t.stream_label(a.stream) + " after " + op_ref(a, t) + " and make " +
               t.stream_label(b.stream) + " wait on it before the capture ends (#" + std::to_string(b.seq) +
               ")";
      f.pytorch = t.stream_label(b.stream) + ".wait_stream(" + t.stream_label(a.stream) +
                  ")  # inside the torch.cuda.graph block, before it exits";
      break;
    case GraphLifetime::kNone: f.available = false; break;
  }
  return f;
}

}  // namespace racetrack::race
