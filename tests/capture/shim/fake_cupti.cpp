// A fake libcupti.so.13: the CUPTI functions the capture shim calls, with
// the CUDA 13 signatures, keeping just enough state to act like CUPTI for
// one subscriber (callbacks delivered on the calling thread, activity
// records handed over in buffers the client supplies, walked back with
// cuptiActivityGetNextRecord), plus the test hooks of fakes.h.
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cupti_records.h"
#include "fakes.h"

namespace {

namespace records = racetrack::capture::cupti_records;
using racetrack::capture::shim_fakes::kContext;
using racetrack::capture::shim_fakes::kContextId;
using racetrack::capture::shim_fakes::kLegacyStreamId;

// An id for the per-thread default stream (not used by the scenarios).
constexpr uint32_t kPerThreadStreamId = 8;

int g_subscriber_token;  // its address is the subscriber handle
CUpti_SubscriberHandle subscriber_handle() {
  return reinterpret_cast<CUpti_SubscriberHandle>(&g_subscriber_token);
}

std::mutex g_mutex;  // guards everything below it
CUpti_CallbackFunc g_callback = nullptr;
void* g_userdata = nullptr;
std::set<std::pair<int, CUpti_CallbackId>> g_enabled;
std::set<int> g_kinds;
std::string g_busy_holder;
std::map<uint64_t, uint32_t> g_stream_ids;
size_t g_dropped = 0;
CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
std::vector<uint64_t> g_queued;  // records back to back, as in a buffer
int g_flush_delay_ms = 0;

std::atomic<uint32_t> g_subscribe_calls{0}, g_delivered{0}, g_flushes{0}, g_forced_flushes{0},
    g_buffers_completed{0}, g_records_queued{0}, g_records_delivered{0}, g_records_walked{0},
    g_nvtx_initialised{0};
std::atomic<bool> g_slow_flush_underway{false};

void sleep_ms(int ms) {
  timespec ts{ms / 1000, static_cast<long>(ms % 1000) * 1'000'000};
  nanosleep(&ts, nullptr);
}

size_t size_at(const uint64_t* words) {
  return records::record_size(reinterpret_cast<const CUpti_Activity*>(words)->kind);
}

// Copies whole records from `queued[at...]` into a client buffer of `size`
// bytes; returns the bytes used and advances `at` (in words).
size_t fill_buffer(const std::vector<uint64_t>& queued, size_t& at, uint8_t* buffer, size_t size,
                   uint32_t& records) {
  size_t used = 0;
  while (at < queued.size()) {
    const size_t bytes = size_at(&queued[at]);
    if (used + bytes > size) break;
    std::memcpy(buffer + used, &queued[at], bytes);
    used += bytes;
    at += bytes / sizeof(uint64_t);
    ++records;
  }
  return used;
}

}  // namespace

extern "C" {

// --- subscription and callbacks ---------------------------------------------

CUptiResult CUPTIAPI cuptiSubscribe_v2(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                                       void* userdata, CUpti_SubscriberParams* params) {
  g_subscribe_calls.fetch_add(1);
  if (subscriber == nullptr || callback == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard lock(g_mutex);
  if (g_callback != nullptr || !g_busy_holder.empty()) {
    const std::string holder = g_busy_holder.empty() ? "CUPTI for an earlier subscriber" : g_busy_holder;
    if (params != nullptr && params->oldSubscriberName != nullptr && params->oldSubscriberSize > 0) {
      const size_t n = std::min(holder.size(), params->oldSubscriberSize - 1);
      std::memcpy(params->oldSubscriberName, holder.data(), n);
      params->oldSubscriberName[n] = '\0';
    }
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  }
  g_callback = callback;
  g_userdata = userdata;
  *subscriber = subscriber_handle();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle* subscriber, CUpti_CallbackFunc callback,
                                    void* userdata) {
  return cuptiSubscribe_v2(subscriber, callback, userdata, nullptr);
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
  std::lock_guard lock(g_mutex);
  if (subscriber != subscriber_handle() || g_callback == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  g_callback = nullptr;
  g_userdata = nullptr;
  g_enabled.clear();
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
                                         CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  std::lock_guard lock(g_mutex);
  if (subscriber != subscriber_handle() || g_callback == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  if (enable != 0)
    g_enabled.insert({domain, cbid});
  else
    g_enabled.erase({domain, cbid});
  return CUPTI_SUCCESS;
}

int fake_cupti_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  CUpti_CallbackFunc callback = nullptr;
  void* userdata = nullptr;
  {
    std::lock_guard lock(g_mutex);
    if (g_enabled.count({domain, cbid}) == 0) return 0;
    callback = g_callback;
    userdata = g_userdata;
  }
  // Outside the lock: the subscriber calls back into CUPTI (stream ids).
  callback(userdata, domain, cbid, data);
  g_delivered.fetch_add(1);
  return 1;
}

// --- activity ---------------------------------------------------------------

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                                    CUpti_BuffersCallbackCompleteFunc completed) {
  if (requested == nullptr || completed == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard lock(g_mutex);
  g_request = requested;
  g_complete = completed;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind) {
  std::lock_guard lock(g_mutex);
  g_kinds.insert(kind);
  return CUPTI_SUCCESS;
}

// Hands every queued record to the client: as many buffers as they need,
// each requested, filled and completed on the calling thread.
CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag) {
  const bool forced = (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0;
  g_flushes.fetch_add(1);
  if (forced) g_forced_flushes.fetch_add(1);
  std::vector<uint64_t> queued;
  CUpti_BuffersCallbackRequestFunc request = nullptr;
  CUpti_BuffersCallbackCompleteFunc complete = nullptr;
  int delay_ms = 0;
  {
    std::lock_guard lock(g_mutex);
    request = g_request;
    complete = g_complete;
    delay_ms = forced ? 0 : g_flush_delay_ms;
  }
  if (delay_ms > 0) {
    g_slow_flush_underway.store(true);
    sleep_ms(delay_ms);
  }
  {
    std::lock_guard lock(g_mutex);
    if (request == nullptr) return CUPTI_SUCCESS;  // records stay queued
    queued.swap(g_queued);
  }
  size_t at = 0;
  while (at < queued.size()) {
    uint8_t* buffer = nullptr;
    size_t size = 0;
    size_t max_records = 0;
    request(&buffer, &size, &max_records);
    if (buffer == nullptr || size < size_at(&queued[at])) return CUPTI_ERROR_OUT_OF_MEMORY;
    uint32_t records = 0;
    const size_t valid = fill_buffer(queued, at, buffer, size, records);
    complete(nullptr, 0, buffer, size, valid);
    g_buffers_completed.fetch_add(1);
    g_records_delivered.fetch_add(records);
  }
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid_size, CUpti_Activity** record) {
  const CUptiResult rc = records::next_record(buffer, valid_size, record);
  if (rc == CUPTI_SUCCESS) g_records_walked.fetch_add(1);
  return rc;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext, uint32_t, size_t* dropped) {
  if (dropped == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  std::lock_guard lock(g_mutex);
  *dropped = g_dropped;
  return CUPTI_SUCCESS;
}

// --- ids --------------------------------------------------------------------

CUptiResult CUPTIAPI cuptiGetContextId(CUcontext context, uint32_t* id) {
  if (context != kContext || id == nullptr) return CUPTI_ERROR_INVALID_CONTEXT;
  *id = kContextId;
  return CUPTI_SUCCESS;
}

// As measured (docs/cupti-notes.md §3.5): no context, no id; NULL is the legacy stream.
CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext context, CUstream stream, uint8_t per_thread,
                                        uint32_t* id) {
  if (context != kContext || id == nullptr) return CUPTI_ERROR_INVALID_STREAM;
  if (per_thread != 0) {
    *id = kPerThreadStreamId;
    return CUPTI_SUCCESS;
  }
  if (stream == nullptr) {
    *id = kLegacyStreamId;
    return CUPTI_SUCCESS;
  }
  std::lock_guard lock(g_mutex);
  const auto it = g_stream_ids.find(reinterpret_cast<uintptr_t>(stream));
  if (it == g_stream_ids.end()) return CUPTI_ERROR_INVALID_STREAM;
  *id = it->second;
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetGraphExecId(CUgraphExec graph_exec, uint32_t* id) {
  if (graph_exec == nullptr || id == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *id = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(graph_exec));
  return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetGraphNodeId(CUgraphNode node, uint64_t* id) {
  if (node == nullptr || id == nullptr) return CUPTI_ERROR_INVALID_PARAMETER;
  *id = reinterpret_cast<uintptr_t>(node);
  return CUPTI_SUCCESS;
}

// What NVTX calls when NVTX_INJECTION64_PATH names CUPTI (or a library that
// hands NVTX on to it, as the shim does).
int InitializeInjectionNvtx2(const void* get_export_table) {
  if (get_export_table == nullptr) return 0;
  g_nvtx_initialised.store(1);
  return 1;
}

// --- test hooks ---------------------------------------------------------------

void fake_cupti_add_record(const void* record, size_t size) {
  const size_t expected = records::record_size(static_cast<const CUpti_Activity*>(record)->kind);
  if (size != expected || size % sizeof(uint64_t) != 0) std::abort();  // a bug in the test program
  std::lock_guard lock(g_mutex);
  const size_t at = g_queued.size();
  g_queued.resize(at + size / sizeof(uint64_t));
  std::memcpy(&g_queued[at], record, size);
  g_records_queued.fetch_add(1);
}

void fake_cupti_set_busy(const char* holder) {
  std::lock_guard lock(g_mutex);
  g_busy_holder = holder != nullptr ? holder : "";
}

void fake_cupti_set_stream_id(uint64_t stream, uint32_t id) {
  std::lock_guard lock(g_mutex);
  g_stream_ids[stream] = id;
}

void fake_cupti_set_dropped_records(size_t dropped) {
  std::lock_guard lock(g_mutex);
  g_dropped = dropped;
}

void fake_cupti_set_flush_delay_ms(int ms) {
  std::lock_guard lock(g_mutex);
  g_flush_delay_ms = ms;
}

void fake_cupti_wait_for_slow_flush(void) {
  while (!g_slow_flush_underway.load()) sleep_ms(1);
}

FakeCuptiStats fake_cupti_stats(void) {
  FakeCuptiStats s{};
  s.subscribe_calls = g_subscribe_calls.load();
  s.callbacks_delivered = g_delivered.load();
  s.flushes = g_flushes.load();
  s.forced_flushes = g_forced_flushes.load();
  s.buffers_completed = g_buffers_completed.load();
  s.records_queued = g_records_queued.load();
  s.records_delivered = g_records_delivered.load();
  s.records_walked = g_records_walked.load();
  s.nvtx_initialised = g_nvtx_initialised.load();
  std::lock_guard lock(g_mutex);
  s.subscribed = g_callback != nullptr ? 1 : 0;
  s.callbacks_enabled = static_cast<uint32_t>(g_enabled.size());
  s.activity_kinds_enabled = static_cast<uint32_t>(g_kinds.size());
  return s;
}

}  // extern "C"
