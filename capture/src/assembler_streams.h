// Stream and event identity for the trace assembler. CUDA reuses handles
// after cudaStreamDestroy / cudaEventDestroy, so a trace stream or event is
// a (handle, generation): destroying one ends its generation, and the next
// use of the handle defines a new entity. Entities are defined in the trace
// on first use, so the hundreds of pool streams a framework creates and never
// uses cost nothing.
#pragma once
#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>

#include "api_event.h"
#include "assembler_output.h"
#include "device_record.h"

namespace racetrack::capture {

// cudaStreamLegacy and cudaStreamPerThread as handles.
inline constexpr uint64_t kLegacyStreamHandle = 0x1;
inline constexpr uint64_t kPerThreadStreamHandle = 0x2;

class StreamTable {
 public:
  explicit StreamTable(TraceOutput& out) : out_(out) {}

  // Learned from device records: which device a context belongs to.
  void note_context_device(uint32_t context, uint32_t device) { devices_[context] = device; }
  uint32_t device_of(uint32_t context) const;

  // kStreamCreate: the handle's next use is a new stream with these flags.
  void on_create(const ApiEvent& event, uint32_t context);
  // kStreamDestroy: ends the handle's generation.
  void on_destroy(const ApiEvent& event, uint32_t context);
  // STREAM records say how streams created out of sight behave.
  void on_record(const StreamRecord& record);

  // The trace stream the call ran on (defined on first use); `cupti_id` is
  // the CUPTI stream id from the call or its record (kNoId when unknown).
  uint32_t stream_for(const ApiEvent& event, uint32_t context, uint32_t cupti_id);

 private:
  // Per-thread default streams are one per OS thread; other handles are
  // per context (os_tid is 0 for them).
  struct Key {
    uint32_t context;
    uint64_t handle;
    uint64_t os_tid;
    auto operator<=>(const Key&) const = default;
  };
  struct Created {
    v1::StreamFlags flags = v1::STREAM_BLOCKING;
    int32_t priority = 0;
  };
  static Key key_of(const ApiEvent& event, uint32_t context);
  uint32_t define(const Key& key, uint32_t cupti_id);

  TraceOutput& out_;
  std::map<Key, uint32_t> live_;    // trace stream id of the current generation
  std::map<Key, Created> created_;  // created, not used yet
  std::map<std::pair<uint32_t, uint32_t>, StreamRecord> records_;  // (context, CUPTI id)
  std::unordered_map<uint32_t, uint32_t> devices_;
  uint32_t count_ = 0;
};

class EventTable {
 public:
  explicit EventTable(TraceOutput& out) : out_(out) {}
  // The trace event of the handle's current generation (defined on first use).
  uint32_t event_for(uint64_t handle);
  void on_destroy(uint64_t handle) { live_.erase(handle); }

 private:
  TraceOutput& out_;
  std::unordered_map<uint64_t, uint32_t> live_;
  uint32_t count_ = 0;
};

}  // namespace racetrack::capture
