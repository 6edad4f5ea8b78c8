// An upper bound of the memory a serialized message takes once parsed, from
// its wire format and the schema, without parsing it: a chunk of a few MiB
// of empty sub-messages or packed varints would otherwise decode into tens
// of times its size.
#pragma once

#include <cstdint>
#include <string_view>

namespace google::protobuf {
class Descriptor;
}

namespace racetrack {

// Bytes `wire` (a serialized message of type `type`) takes in memory once
// parsed, at least; stops counting past `limit` (and returns a value above
// it). Malformed input gets a small estimate: the parser rejects it.
uint64_t decoded_size_bound(std::string_view wire, const google::protobuf::Descriptor* type, uint64_t limit);

}  // namespace racetrack
