#include "decoded_size.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/message.h>
#include <google/protobuf/wire_format_lite.h>

#include <mutex>
#include <unordered_map>

namespace racetrack {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::io::CodedInputStream;
using Wire = google::protobuf::internal::WireFormatLite;

// Repeated fields grow by doubling: an element may cost twice its size.
constexpr uint64_t kPointer = 2 * sizeof(void*);
constexpr uint64_t kScalar = 2 * sizeof(uint64_t);
constexpr uint64_t kString = sizeof(std::string) + kPointer;
constexpr uint64_t kUnknown = 32;  // an unknown field kept in the message

uint64_t object_size(const Descriptor* type) {
  static std::mutex mutex;
  static std::unordered_map<const Descriptor*, uint64_t> sizes;
  std::lock_guard lock(mutex);
  auto [it, added] = sizes.try_emplace(type, 0);
  if (added) {
    const auto* prototype = google::protobuf::MessageFactory::generated_factory()->GetPrototype(type);
    it->second = prototype ? prototype->SpaceUsedLong() : 256;
  }
  return it->second;
}

class Bound {
 public:
  explicit Bound(uint64_t limit) : limit_(limit) {}

  // Walks one message's fields; false on malformed input.
  bool message(CodedInputStream& in, const Descriptor* type) {
    // Repeated fields come as runs of one tag: look each tag up once a run.
    uint32_t last_tag = 0;
    const FieldDescriptor* field = nullptr;
    uint64_t object = 0;
    while (total_ <= limit_) {
      const uint32_t tag = in.ReadTag();
      if (tag == 0) return true;
      if (tag != last_tag) {
        last_tag = tag;
        field = type->FindFieldByNumber(static_cast<int>(Wire::GetTagFieldNumber(tag)));
        object =
            field && field->type() == FieldDescriptor::TYPE_MESSAGE ? object_size(field->message_type()) : 0;
      }
      if (!field) {
        total_ += kUnknown;
        if (!Wire::SkipField(&in, tag)) return false;
        continue;
      }
      if (Wire::GetTagWireType(tag) != Wire::WIRETYPE_LENGTH_DELIMITED) {
        total_ += field->is_repeated() ? kScalar : 0;
        if (!Wire::SkipField(&in, tag)) return false;
        continue;
      }
      uint32_t length = 0;
      if (!in.ReadVarint32(&length)) return false;
      if (field->type() == FieldDescriptor::TYPE_MESSAGE) {
        total_ += object + (field->is_repeated() ? kPointer : 0);
        if (length == 0) continue;
        const auto limit = in.PushLimit(static_cast<int>(length));
        if (!message(in, field->message_type()) || !in.ConsumedEntireMessage()) return false;
        in.PopLimit(limit);
      } else {
        // Strings and bytes keep their bytes; packed scalars are at least
        // one byte each.
        total_ += field->is_repeated() && field->cpp_type() != FieldDescriptor::CPPTYPE_STRING
                      ? uint64_t{length} * kScalar
                      : kString + length;
        if (!in.Skip(static_cast<int>(length))) return false;
      }
    }
    return true;
  }
  uint64_t total() const { return total_; }

 private:
  uint64_t limit_;
  uint64_t total_ = 0;
};

}  // namespace

uint64_t decoded_size_bound(std::string_view wire, const Descriptor* type, uint64_t limit) {
  CodedInputStream in(reinterpret_cast<const uint8_t*>(wire.data()), static_cast<int>(wire.size()));
  Bound bound(limit);
  bound.message(in, type);
  return object_size(type) + bound.total();
}

}  // namespace racetrack
