// The writing end of the trace assembler: the header, string interning,
// host threads, dense seq numbering and the writer's pending chunk. Every
// entity goes into the pending chunk before (or with) the first op that
// names it, so each written chunk is self-consistent.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "racetrack/traces/container.h"

namespace racetrack::capture {

class TraceOutput {
 public:
  TraceOutput(TraceWriter& writer, v1::Header header);

  // The absolute time op times are relative to; the first call wins.
  void set_origin(int64_t absolute_ns);
  bool has_origin() const { return origin_.has_value(); }
  int64_t relative(int64_t absolute_ns) const { return absolute_ns - origin_.value_or(0); }

  v1::Chunk& pending() { return writer_.pending(); }
  uint32_t intern(std::string_view text);
  // The HostThread of an OS thread, defined on first use.
  uint32_t thread(uint64_t os_tid);

  // A new op with the next seq, on `os_tid`'s thread, with host times made
  // relative. The caller fills it, then calls end_op().
  v1::Op& begin_op(uint64_t os_tid, int64_t host_start, int64_t host_end);
  void end_op();
  // The seq the next op will get.
  uint64_t next_seq() const { return next_seq_; }
  uint64_t ops_written() const { return next_seq_ - 1; }
  // The OS thread of the last op (0 before any).
  uint64_t last_os_tid() const { return last_os_tid_; }
  // Changes whenever a chunk is written: an entity added at generation G is
  // still in the pending chunk while generation() == G.
  uint64_t generation() const { return writer_.chunks_written(); }

  // Writes the pending chunk and flushes the file (not before the header,
  // which needs the time origin, can be written).
  Status flush();
  // The first write error, if any.
  const Status& status() const { return status_; }

 private:
  void place_header();

  TraceWriter& writer_;
  v1::Header header_;
  std::optional<int64_t> origin_;
  bool header_placed_ = false;
  uint64_t next_seq_ = 1;
  uint64_t last_os_tid_ = 0;
  uint32_t strings_ = 0;
  std::unordered_map<std::string, uint32_t> interned_;
  std::unordered_map<uint64_t, uint32_t> threads_;
  Status status_ = Ok{};
};

}  // namespace racetrack::capture
