// What the Perfetto and Chrome exporters share: which track an op's slice
// goes on and its span (OpPlacement), its name and arguments, the flow ids
// of record -> wait pairs, NVTX ranges and hazards. The walker decides all of
// it; a Sink only encodes.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "export_placement.h"
#include "racetrack/traces/export.h"

namespace racetrack::exporting {

struct Arg {
  enum class Type : uint8_t { kUint, kBool, kString, kPointer };
  std::string_view key;  // a literal, or a string that outlives the export
  Type type = Type::kUint;
  uint64_t number = 0;  // kUint, kBool, kPointer
  std::string text;     // kString
};

struct Slice {
  Track track;
  int64_t start_ns = 0;  // >= 0
  int64_t end_ns = 0;    // >= start_ns
  std::string name;
  std::string_view category;  // the op kind's short name, "nvtx" or "hazard"
  std::vector<Arg> args;
  // One id per record -> wait pair, unique in the trace (a flow cannot fork):
  // a record lists the ids of all waits bound to it, a bound wait its own.
  std::vector<uint64_t> flows_out;
  uint64_t flow_in = 0;  // 0: none
  // The record's 1-based number, on a record that has waits and on the waits
  // bound to it (0 otherwise): Chrome JSON has one bind_id per event.
  uint64_t record_group = 0;
  // Flow ids this slice shares with one other slice (hazards): the flow runs
  // from whichever starts first (Perfetto), or see Sink::flow (JSON).
  std::vector<uint64_t> shared_flows;
};

// Counts what it writes; write errors surface through ok().
class Output {
 public:
  explicit Output(std::ostream& out) : out_(out) {}
  void write(std::string_view text) {
    out_.write(text.data(), static_cast<std::streamsize>(text.size()));
    bytes_ += text.size();
  }
  bool ok() const { return static_cast<bool>(out_); }
  bool flush() { return static_cast<bool>(out_.flush()); }
  uint64_t bytes() const { return bytes_; }

 private:
  std::ostream& out_;
  uint64_t bytes_ = 0;
};

// Receives tracks before the slices on them: a device before its streams,
// the host before its threads, a lane before its overlap tracks.
class Sink {
 public:
  explicit Sink(std::ostream& out) : out_(out) {}
  virtual ~Sink() = default;
  Output& out() { return out_; }

  virtual void begin() {}
  virtual void device(uint32_t ordinal, const std::string& name) = 0;
  virtual void host(const std::string& name) = 0;
  virtual void stream(uint32_t id, uint32_t device, const std::string& name) = 0;
  virtual void thread(uint32_t id, const std::string& name) = 0;
  // Any other track: a lane's overlap track (sub >= 1), a thread's NVTX
  // track, the hazard track (kHazards, sub 0) and its overlap tracks.
  virtual void track(const Track& track, const std::string& name) = 0;
  virtual void slice(const Slice& slice) = 0;
  // A slice written as it opens and as it closes (NVTX ranges, whose end
  // comes later); a close ends the track's innermost open slice. end_ns
  // and the flows are not used.
  virtual void open_slice(const Slice& slice) = 0;
  virtual void close_slice(const Track& track, int64_t end_ns) = 0;
  virtual void instant(const Track& track, int64_t at_ns, const std::string& name,
                       const std::vector<Arg>& args) = 0;
  // A flow between two slices that list `id` in shared_flows, `from`
  // starting no later than `to`; called after both slices.
  virtual void flow(uint64_t /*id*/, const Track& /*from*/, int64_t /*from_ns*/, const Track& /*to*/,
                    int64_t /*to_ns*/) {}
  virtual void end() {}

 protected:
  Output out_;
};

// Streams `in_path` into `sink`. Reads the input twice: the first pass finds
// the window, counts each record's waits and places the hazards' ops,
// because a record's flow ids and a hazard's go into slices written before
// their partners are seen.
// `bytes_per_op` gives ExportPlan::estimated_bytes.
Result<ExportStats> walk_trace(const std::string& in_path, const ExportOptions& options, Sink& sink,
                               uint64_t bytes_per_op);

// Where one trace's tracks go in a Perfetto trace that merges several (the
// ranks of a run, export_ranks.cpp). The default frame writes a trace alone.
struct PerfettoFrame {
  uint32_t sequence_id = 1;  // one packet sequence per merged trace
  uint64_t salt = 0;         // non-zero: track uuids and flow ids mixed with it, unique per trace
  int64_t offset_ns = 0;     // added to every timestamp (>= 0): the clocks aligned
  int32_t pid = 0;           // > 0: a process track, named process_name, holds every track
  std::string process_name;
  std::string description;  // the process track's
};

std::unique_ptr<Sink> make_perfetto_sink(std::ostream& out, PerfettoFrame frame = {});
std::unique_ptr<Sink> make_chrome_sink(std::ostream& out);

}  // namespace racetrack::exporting
