// Decodes CUPTI activity records into DeviceRecords. Records are packed
// (PACKED_ALIGNMENT), so every field is copied out by value.
#pragma once
#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "device_record.h"

namespace racetrack::capture {

// The activity kinds the shim enables, in the order it enables them.
std::span<const CUpti_ActivityKind> enabled_activity_kinds();

// nullopt for kinds the trace does not use.
std::optional<DeviceRecord> decode_record(const CUpti_Activity& record);

// Yields the records of one completed buffer. The real source walks it with
// cuptiActivityGetNextRecord; tests hand out synthetic records.
class RecordSource {
 public:
  virtual ~RecordSource() = default;
  virtual const CUpti_Activity* next() = 0;
};

// cuptiActivityGetNextRecord's signature: the shim passes the real function,
// tests a fake that walks a buffer they lay out.
using NextRecordFn = CUptiResult (*)(uint8_t* buffer, size_t valid_size, CUpti_Activity** record);

// The records of one completed buffer. The walk ends at the end of the buffer
// (CUPTI_ERROR_MAX_LIMIT_REACHED) or at any error; failed() tells the two
// apart, so the shim can report a corrupt buffer.
class BufferRecordSource final : public RecordSource {
 public:
  BufferRecordSource(NextRecordFn next_record, uint8_t* buffer, size_t valid_size)
      : next_record_(next_record), buffer_(buffer), valid_size_(valid_size) {}

  const CUpti_Activity* next() override;
  bool failed() const { return error_ != CUPTI_SUCCESS; }
  CUptiResult error() const { return error_; }  // CUPTI_SUCCESS unless failed()

 private:
  NextRecordFn next_record_;
  uint8_t* buffer_;
  size_t valid_size_;
  CUpti_Activity* current_ = nullptr;  // the walk's cursor: nullptr asks for the first record
  bool done_ = false;
  CUptiResult error_ = CUPTI_SUCCESS;
};

}  // namespace racetrack::capture
