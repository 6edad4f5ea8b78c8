#include "assembler_streams.h"

#include "racetrack/traces/describe.h"

namespace racetrack::capture {
namespace {

// CUpti_ActivityStreamFlag: 1 blocking, 2 non-blocking, 3 the NULL stream.
v1::StreamFlags flags_of_record(uint8_t flag) {
  if (flag == 2) return v1::STREAM_NON_BLOCKING;
  if (flag == 3) return v1::STREAM_LEGACY_DEFAULT;
  return v1::STREAM_BLOCKING;
}

}  // namespace

uint32_t StreamTable::device_of(uint32_t context) const {
  auto it = devices_.find(context);
  return it == devices_.end() ? 0 : it->second;
}

StreamTable::Key StreamTable::key_of(const ApiEvent& event, uint32_t context) {
  const bool per_thread =
      event.stream == kPerThreadStreamHandle || (event.stream == 0 && (event.flags & kFlagPerThreadStream));
  if (per_thread) return {context, kPerThreadStreamHandle, event.os_tid};
  if (event.stream == 0 || event.stream == kLegacyStreamHandle) return {context, 0, 0};
  return {context, event.stream, 0};
}

void StreamTable::on_create(const ApiEvent& event, uint32_t context) {
  const Key key = key_of(event, context);
  if (key.handle == 0 || key.handle == kPerThreadStreamHandle) return;  // not a created stream
  live_.erase(key);  // a reused handle starts a new generation
  created_[key] = Created{(event.value & 1) ? v1::STREAM_NON_BLOCKING : v1::STREAM_BLOCKING, event.priority};
}

void StreamTable::on_destroy(const ApiEvent& event, uint32_t context) {
  const Key key = key_of(event, context);
  live_.erase(key);
  created_.erase(key);
}

void StreamTable::on_record(const StreamRecord& record) {
  records_[{record.context_id, record.stream_id}] = record;
}

uint32_t StreamTable::stream_for(const ApiEvent& event, uint32_t context, uint32_t cupti_id) {
  const Key key = key_of(event, context);
  if (auto it = live_.find(key); it != live_.end()) return it->second;
  const uint32_t id = define(key, cupti_id);
  live_.emplace(key, id);
  return id;
}

uint32_t StreamTable::define(const Key& key, uint32_t cupti_id) {
  v1::Stream& s = *out_.pending().add_streams();
  s.set_id(++count_);
  s.set_device(device_of(key.context));
  const bool id_known = cupti_id != kNoId;
  s.set_native_id(id_known ? cupti_id : key.handle);
  if (key.handle == 0) {
    s.set_flags(v1::STREAM_LEGACY_DEFAULT);
    s.set_name(out_.intern("default"));
    return count_;
  }
  if (key.handle == kPerThreadStreamHandle) {
    s.set_flags(v1::STREAM_PER_THREAD_DEFAULT);
    s.set_name(out_.intern("per-thread default"));
    return count_;
  }
  s.set_name(out_.intern(id_known ? "stream " + std::to_string(cupti_id) : "stream " + hex(key.handle)));
  if (auto created = created_.find(key); created != created_.end()) {
    s.set_flags(created->second.flags);
    s.set_priority(created->second.priority);
    created_.erase(created);
  } else if (auto record = records_.find({key.context, cupti_id}); id_known && record != records_.end()) {
    s.set_flags(flags_of_record(record->second.flag));
    s.set_priority(record->second.priority);
  } else {
    s.set_flags(v1::STREAM_BLOCKING);
  }
  return count_;
}

uint32_t EventTable::event_for(uint64_t handle) {
  auto [it, added] = live_.try_emplace(handle, count_ + 1);
  if (added) {
    v1::Event& e = *out_.pending().add_events();
    e.set_id(++count_);
  }
  return it->second;
}

}  // namespace racetrack::capture
