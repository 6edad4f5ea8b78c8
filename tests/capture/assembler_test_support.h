// A fake CUDA program for the trace assembler tests: each call logs the
// ApiEvents the callback decoder would (a runtime call and, when nested, the
// driver call inside it, logged first since events are logged at EXIT) and
// the device records CUPTI would deliver. assemble() feeds them the way the
// shim does, records interleaved with events in a seeded order, writes the
// trace, loads and validates it.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "racetrack/race/checker.h"
#include "racetrack/traces/trace_io.h"
#include "racetrack/traces/validate.h"
#include "test_support.h"
#include "trace_assembler.h"

namespace racetrack::capture::testing {

inline constexpr int64_t kStart = 1'700'000'000'000'000'000;
inline constexpr uint32_t kContext = 1;
inline constexpr uint64_t kMainThread = 4000;

// A stream as the program names it: its handle and CUPTI's id for it.
struct FakeStream {
  uint64_t handle = 0;
  uint32_t id = 7;
};
inline constexpr FakeStream kLegacy{0, 7};
inline FakeStream user_stream(int n) {
  return {0x5000 + static_cast<uint64_t>(n), 13 + static_cast<uint32_t>(n)};
}

struct LoggedEvent {
  ApiEvent event;
  std::vector<uint64_t> payload;
};

inline std::vector<uint64_t> text_words(const std::string& text) {
  std::vector<uint64_t> words((text.size() + 7) / 8, 0);
  if (!text.empty()) std::memcpy(words.data(), text.data(), text.size());
  return words;
}

// A module image the shim hands over after the event that logged its load.
struct LoadedImage {
  size_t after_event = 0;  // index in FakeProgram::events
  uint64_t cupti_module = 0;
  std::vector<uint8_t> bytes;
  std::string source;
};

class FakeProgram {
 public:
  uint64_t tid = kMainThread;
  std::vector<LoggedEvent> events;  // in log order
  std::vector<DeviceRecord> records;
  std::vector<LoadedImage> images;

  // Logs one call: next seq and correlation id, 1 µs long.
  ApiEvent& call(ApiKind kind, FakeStream stream = kLegacy) {
    ApiEvent e;
    e.seq = next_seq_++;
    const bool api_call =
        kind < ApiKind::kNvtxPush || kind == ApiKind::kModuleLoad || kind >= ApiKind::kHostFunc;
    e.correlation = api_call ? next_correlation_++ : 0;
    e.os_tid = tid;
    e.host_start = clock_;
    e.host_end = clock_ + 1000;
    clock_ += 2000;
    e.kind = kind;
    e.domain =
        kind >= ApiKind::kNvtxPush && kind <= ApiKind::kNvtxMark ? ApiDomain::kNvtx : ApiDomain::kRuntime;
    e.context_id = kContext;
    e.stream = stream.handle;
    e.stream_id = stream.id;
    events.push_back({e, {}});
    return events.back().event;
  }

  // A kernel launch: a runtime call with the driver call nested in it, whose
  // event carries the argument words.
  uint64_t launch(FakeStream s, std::vector<uint64_t> words, const std::string& name = "kernel",
                  bool with_record = true, uint64_t function = 0xF00, uint64_t module = 0) {
    ApiEvent runtime = call(ApiKind::kLaunch, s);
    runtime.handle = function;
    runtime.module = module;
    runtime.grid[0] = 4;
    runtime.block[0] = 128;
    ApiEvent driver = runtime;
    driver.seq = next_seq_++;
    driver.domain = ApiDomain::kDriver;
    driver.cbid = 307;
    driver.payload_words = static_cast<uint32_t>(words.size());
    events.back() = {driver, words};  // the driver call exits first
    events.push_back({runtime, {}});
    if (with_record) {
      KernelRecord k;
      k.correlation = static_cast<uint32_t>(runtime.correlation);
      k.context_id = kContext;
      k.stream_id = s.id;
      k.start = runtime.host_end + 5000;
      k.end = k.start + 20000;
      k.name = name;
      records.push_back(k);
    }
    return runtime.correlation;
  }

  // cudaMemcpyAsync with its record; `kind` is cudaMemcpyKind.
  uint64_t memcpy(FakeStream s, uint64_t dst, uint64_t src, uint64_t bytes, uint32_t kind,
                  MemoryKind dst_kind, MemoryKind src_kind, bool async = true) {
    ApiEvent& e = call(ApiKind::kMemcpy, s);
    e.dst = dst;
    e.src = src;
    e.bytes = bytes;
    e.value = kind;
    if (async) e.flags |= kFlagAsync;
    CopyRecord r;
    r.correlation = static_cast<uint32_t>(e.correlation);
    r.context_id = kContext;
    r.stream_id = s.id;
    r.start = e.host_end + 1000;
    r.end = r.start + 4000;
    r.bytes = bytes;
    r.copy_kind = kind == 1 ? 1 : kind == 2 ? 2 : kind == 3 ? 8 : 0;
    r.dst_kind = dst_kind;
    r.src_kind = src_kind;
    r.async = async;
    records.push_back(r);
    return e.correlation;
  }

  uint64_t event_record(FakeStream s, uint64_t event, uint64_t sync_id) {
    ApiEvent& e = call(ApiKind::kEventRecord, s);
    e.event = event;
    EventRecordRecord r;
    r.correlation = static_cast<uint32_t>(e.correlation);
    r.context_id = kContext;
    r.stream_id = s.id;
    r.event_id = static_cast<uint32_t>(event & 0xFF);
    r.sync_id = sync_id;
    records.push_back(r);
    return e.correlation;
  }

  uint64_t stream_wait(FakeStream s, uint64_t event, uint64_t sync_id) {
    ApiEvent& e = call(ApiKind::kStreamWait, s);
    e.event = event;
    SyncRecord r;
    r.correlation = static_cast<uint32_t>(e.correlation);
    r.context_id = kContext;
    r.stream_id = s.id;
    r.type = SyncType::kStreamWaitEvent;
    r.sync_id = sync_id;
    records.push_back(r);
    return e.correlation;
  }

  ApiEvent& alloc(ApiKind kind, uint64_t address, uint64_t bytes, FakeStream s = kLegacy) {
    ApiEvent& e = call(kind, s);
    e.dst = address;
    e.bytes = bytes;
    return e;
  }

  void nvtx(ApiKind kind, const std::string& text = "") {
    ApiEvent& e = call(kind);
    e.payload_bytes = static_cast<uint32_t>(text.size());
    e.payload_words = static_cast<uint32_t>((text.size() + 7) / 8);
    events.back().payload = text_words(text);
  }

  // CUPTI's module-load callback: `inside` is the correlation id of the call
  // in flight on the thread (0 = none); the image follows the event.
  void module_loaded(uint64_t cupti_module, std::vector<uint8_t> image, uint64_t inside = 0,
                     std::string source = {}) {
    ApiEvent& e = call(ApiKind::kModuleLoaded);
    e.domain = ApiDomain::kResource;
    e.correlation = inside;
    e.handle = cupti_module;
    e.bytes = image.size();
    images.push_back({events.size() - 1, cupti_module, std::move(image), std::move(source)});
  }
  // The correlation id the next call will get.
  uint64_t next_correlation() const { return next_correlation_; }

  int64_t now() const { return clock_; }
  void wait_ns(int64_t ns) { clock_ += ns; }

 private:
  uint64_t next_seq_ = 1;
  uint64_t next_correlation_ = 1;
  int64_t clock_ = kStart;
};

struct Assembled {
  v1::Chunk trace;
  AssemblerStats stats;
};

inline v1::Header test_header() {
  v1::Header h;
  h.set_producer("racetrack-capture test");
  h.set_pid(77);
  h.set_rank(-1);
  return h;
}

// The records before every event (seed for assemble()).
inline constexpr uint64_t kRecordsFirst = UINT64_MAX;

// Feeds the program: events in log order, each followed by an advance that
// promises every seq below the lowest one not yet logged, and the records
// spread among them (seed 0: after every event; kRecordsFirst: before; else
// a seeded shuffle, records often arriving before their call).
inline Assembled assemble(const FakeProgram& program, const std::string& path, uint64_t seed = 0,
                          AssemblerOptions options = {}) {
  auto writer = TraceWriter::create(path, {.compress = false, .ops_per_chunk = 8});
  EXPECT_TRUE(writer.ok());
  if (!writer) return {};
  options.header = test_header();
  TraceAssembler assembler(*writer, options);

  struct Item {
    const LoggedEvent* event = nullptr;
    const DeviceRecord* record = nullptr;
  };
  std::vector<Item> items;
  for (const LoggedEvent& e : program.events) items.push_back({&e, nullptr});
  if (seed == 0 || seed == kRecordsFirst) {
    const auto at = seed == 0 ? items.end() : items.begin();
    std::vector<Item> records;
    for (const DeviceRecord& r : program.records) records.push_back({nullptr, &r});
    items.insert(at, records.begin(), records.end());
  } else {
    std::mt19937_64 rng(seed);
    for (const DeviceRecord& r : program.records) {
      std::uniform_int_distribution<size_t> at(0, items.size());
      items.insert(items.begin() + static_cast<long>(at(rng)), Item{nullptr, &r});
    }
  }
  std::vector<uint64_t> logged;
  auto complete_below = [&] {
    uint64_t below = UINT64_MAX;
    for (const LoggedEvent& e : program.events)
      if (std::find(logged.begin(), logged.end(), e.event.seq) == logged.end())
        below = std::min(below, e.event.seq);
    return below;
  };
  for (const Item& item : items) {
    int64_t now = kStart;
    if (item.event) {
      assembler.add_api(item.event->event, item.event->payload);
      logged.push_back(item.event->event.seq);
      now = item.event->event.host_end;
      for (const LoadedImage& image : program.images)
        if (&program.events[image.after_event] == item.event)
          assembler.add_module_image(image.cupti_module, image.bytes, image.source);
    } else {
      assembler.add_record(*item.record);
    }
    auto status = assembler.advance(complete_below(), std::max(now, kStart));
    EXPECT_TRUE(status.ok()) << status.error().describe();
  }
  EXPECT_TRUE(assembler.finish().ok());
  Assembled out;
  out.stats = assembler.stats();
  EXPECT_TRUE(writer->close().ok());
  auto loaded = load_trace(path);
  EXPECT_TRUE(loaded.ok()) << loaded.error().describe();
  if (loaded) out.trace = std::move(*loaded);
  const ValidationReport report = validate_file(path);
  for (const Error& e : report.errors) ADD_FAILURE() << "invalid trace: " << e.describe();
  return out;
}

inline race::CheckResult check(const v1::Chunk& trace) {
  race::CheckOptions options;
  options.keep_all = true;
  options.explain_and_fix = false;
  return race::check_trace(trace, options);
}

// The ops of one kind, in order.
inline std::vector<const v1::Op*> ops_of(const v1::Chunk& trace, v1::Op::WhatCase kind) {
  std::vector<const v1::Op*> out;
  for (const v1::Op& op : trace.ops())
    if (op.what_case() == kind) out.push_back(&op);
  return out;
}

inline std::string string_of(const v1::Chunk& trace, uint32_t id) {
  return id == 0 || id > static_cast<uint32_t>(trace.strings_size())
             ? ""
             : trace.strings(static_cast<int>(id) - 1);
}

}  // namespace racetrack::capture::testing
