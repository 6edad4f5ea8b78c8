// What the Perfetto and Chrome exporters share: which lane an op goes on and
// the span its slice gets (OpPlacer, shared with the viewer), its name and
// arguments, and the flow ids of record -> wait pairs. The walker decides all
// of it; a Sink only encodes.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "racetrack/traces/export.h"
#include "racetrack/traces/timeline.h"

namespace racetrack::exporting {

struct Arg {
  enum class Type : uint8_t { kUint, kBool, kString, kPointer };
  std::string_view key;  // always a literal
  Type type = Type::kUint;
  uint64_t number = 0;  // kUint, kBool, kPointer
  std::string text;     // kString
};

struct Slice {
  LaneKind lane = LaneKind::kThread;
  uint32_t lane_id = 0;  // stream id or host thread id
  int64_t start_ns = 0;  // >= 0
  int64_t end_ns = 0;    // > start_ns
  std::string name;
  std::string_view category;  // the op kind's short name
  std::vector<Arg> args;
  // One id per record -> wait pair, unique in the trace (a flow cannot fork):
  // a record lists the ids of all waits bound to it, a bound wait its own.
  std::vector<uint64_t> flows_out;
  uint64_t flow_in = 0;  // 0: none
  // The record's 1-based number, on a record that has waits and on the waits
  // bound to it (0 otherwise): Chrome JSON has one bind_id per event.
  uint64_t record_group = 0;
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

// Receives lanes before the slices on them: a device before its streams, the
// host before its threads.
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
  virtual void slice(const Slice& slice) = 0;
  virtual void end() {}

 protected:
  Output out_;
};

// Streams `in_path` into `sink`. Reads the input twice: the first pass counts
// each record's waits, because a record's flow ids go into its slice, which
// is written before the waits are seen.
Result<ExportStats> walk_trace(const std::string& in_path, Sink& sink, const Progress& progress);

// Runs `exporter` into a new file at `out_path`; removes it on failure.
using StreamExporter = Result<ExportStats> (*)(const std::string&, std::ostream&, const Progress&);
Result<ExportStats> export_to_file(const std::string& in_path, const std::string& out_path,
                                   StreamExporter exporter, const Progress& progress);

}  // namespace racetrack::exporting
