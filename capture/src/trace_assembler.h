// Builds a racetrack trace from what the capturer collected: API events (in
// submission order per thread, interleaved across threads) and device
// records (in any order, often long after their call). Joins them by
// correlation id, merges a runtime call with the driver call nested in it,
// keeps stream and event identities by handle, tells queries from syncs,
// turns allocations into regions, applies racetrack annotations from NVTX
// marks and ranges, and writes ops as soon as they are complete, so a killed
// program loses at most what was not yet flushed. Single-threaded: the
// shim's flusher thread owns it.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "api_event.h"
#include "assembler_modules.h"
#include "device_record.h"
#include "racetrack/traces/container.h"
#include "racetrack/traces/result.h"

namespace racetrack::capture {

struct AssemblerOptions {
  // Producer, pid, rank, host and command line; the assembler sets the clock
  // domain and the time origin (the first event's host time).
  v1::Header header;
  // How long an op whose device record has not arrived is held back before
  // it is written without device times.
  int64_t record_wait_ns = 2'000'000'000;
  // Which module images the trace keeps (--no-code, --max-module-bytes).
  ModuleOptions modules{};
};

struct AssemblerStats {
  uint64_t ops_written = 0;
  uint64_t api_events = 0;
  uint64_t records = 0;
  uint64_t merged_nested_calls = 0;   // runtime + driver callbacks of one call
  uint64_t failed_calls = 0;          // non-zero result: no op written
  uint64_t ops_without_record = 0;    // written without device times
  uint64_t unmatched_records = 0;     // no API event with their correlation id
  uint64_t unknown_frees = 0;         // free of an address with no live region
  uint64_t graph_templates = 0;       // calls captured into a graph (not executed)
  ModuleStats modules;
};

class TraceAssembler {
 public:
  TraceAssembler(TraceWriter& writer, AssemblerOptions options);
  ~TraceAssembler();
  TraceAssembler(const TraceAssembler&) = delete;
  TraceAssembler& operator=(const TraceAssembler&) = delete;

  // `payload` holds the event's payload_words words (argument words, NVTX text).
  void add_api(const ApiEvent& event, std::span<const uint64_t> payload);
  void add_record(DeviceRecord record);
  // The image of a module load (CUPTI's module id), once every event logged
  // before the load has been added.
  void add_module_image(uint64_t cupti_module, std::span<const uint8_t> image, std::string_view source);
  // Every API event with seq < complete_below has been added: write the ops
  // that are ready (their records arrived, or they waited long enough by
  // `now_ns`), then flush the writer.
  Status advance(uint64_t complete_below, int64_t now_ns);
  // The end: writes everything still held, with or without records.
  Status finish();
  // An instantaneous mark on the trace (e.g. "CUPTI dropped 12 records").
  void note(const std::string& text, int64_t now_ns);

  const AssemblerStats& stats() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace racetrack::capture
