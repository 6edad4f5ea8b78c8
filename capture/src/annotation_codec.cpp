#include "annotation_codec.h"

#include <charconv>

namespace racetrack::capture {
namespace {

// Splits on runs of spaces; keeps where each item starts so a label's name
// (which may hold spaces) can be taken as the rest of the message.
struct Item {
  std::string_view text;
  size_t end = 0;  // offset just past the item in the split string
};

std::vector<Item> split_items(std::string_view s) {
  std::vector<Item> items;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    const size_t start = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > start) items.push_back({s.substr(start, i - start), i});
  }
  return items;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

bool parse_number(std::string_view text, int base, uint64_t& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, base);
  return ec == std::errc() && end == text.data() + text.size();
}

Error item_error(std::string_view verb, size_t position, std::string_view item, const std::string& what) {
  return make_error("racetrack:" + std::string(verb) + ": item " + std::to_string(position) + " '" +
                    std::string(item) + "': " + what);
}

// "0x<hex>:<decimal bytes>", the extent part shared by accesses and labels.
Result<AnnotatedAccess> parse_extent(std::string_view verb, size_t position, std::string_view item,
                                     std::string_view extent) {
  const size_t colon = extent.find(':');
  if (colon == std::string_view::npos)
    return item_error(verb, position, item, "expected 0x<address>:<bytes>");
  const std::string_view address = extent.substr(0, colon);
  const std::string_view bytes = extent.substr(colon + 1);
  AnnotatedAccess out;
  if (address.size() < 3 || address.substr(0, 2) != "0x" || !parse_number(address.substr(2), 16, out.address))
    return item_error(verb, position, item, "address '" + std::string(address) + "' is not 0x<hex>");
  if (!parse_number(bytes, 10, out.bytes))
    return item_error(verb, position, item, "size '" + std::string(bytes) + "' is not a decimal byte count");
  if (out.bytes == 0) return item_error(verb, position, item, "size is 0 bytes");
  if (out.address + out.bytes < out.address)
    return item_error(verb, position, item, "range overflows the address space");
  return out;
}

// "<r|w|rw|u>:0x<hex>:<decimal bytes>".
Result<AnnotatedAccess> parse_access(std::string_view verb, size_t position, std::string_view item) {
  const size_t colon = item.find(':');
  const std::string_view mode = item.substr(0, colon);
  v1::AccessMode parsed;
  if (mode == "r")
    parsed = v1::MODE_READ;
  else if (mode == "w")
    parsed = v1::MODE_WRITE;
  else if (mode == "rw")
    parsed = v1::MODE_READ_WRITE;
  else if (mode == "u")
    parsed = v1::MODE_UNKNOWN;
  else
    return item_error(verb, position, item, "mode '" + std::string(mode) + "' is not r, w, rw or u");
  if (colon == std::string_view::npos)
    return item_error(verb, position, item, "expected <mode>:0x<address>:<bytes>");
  auto access = parse_extent(verb, position, item, item.substr(colon + 1));
  if (access) access->mode = parsed;
  return access;
}

// "s=0x<hex>": the stream an operator or block belongs to.
bool is_stream_item(std::string_view item) { return item.substr(0, 2) == "s="; }

Status parse_stream(std::string_view verb, size_t position, std::string_view item, uint64_t& out) {
  const std::string_view value = item.substr(2);
  if (value.size() < 3 || value.substr(0, 2) != "0x" || !parse_number(value.substr(2), 16, out))
    return item_error(verb, position, item, "stream is not s=0x<hex>");
  return Ok{};
}

Status parse_accesses(std::string_view verb, const std::vector<Item>& items, size_t first,
                      std::vector<AnnotatedAccess>& out, uint64_t* stream = nullptr) {
  for (size_t i = first; i < items.size(); ++i) {
    if (stream != nullptr && is_stream_item(items[i].text)) {
      if (auto status = parse_stream(verb, i + 1, items[i].text, *stream); !status) return status;
      continue;
    }
    auto access = parse_access(verb, i + 1, items[i].text);
    if (!access) return access.error();
    out.push_back(*access);
  }
  return Ok{};
}

}  // namespace

Result<std::optional<ParsedAnnotation>> parse_annotation(std::string_view message) {
  if (message.substr(0, kAnnotationPrefix.size()) != kAnnotationPrefix)
    return std::optional<ParsedAnnotation>{};
  const std::string_view rest = message.substr(kAnnotationPrefix.size());
  const size_t space = rest.find(' ');
  const std::string_view verb = rest.substr(0, space);
  const std::string_view args = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
  const std::vector<Item> items = split_items(args);

  ParsedAnnotation out;
  if (verb == "kernel" || verb == "host") {
    out.verb = verb == "kernel" ? AnnotationVerb::kKernel : AnnotationVerb::kHost;
    if (items.empty())
      return make_error("racetrack:" + std::string(verb) +
                        ": expected at least one access "
                        "<r|w|rw|u>:0x<address>:<bytes>");
    if (auto status = parse_accesses(verb, items, 0, out.accesses); !status) return status.error();
  } else if (verb == "label") {
    out.verb = AnnotationVerb::kLabel;
    if (items.empty()) return make_error("racetrack:label: expected 0x<address>:<bytes> <name>");
    auto extent = parse_extent(verb, 1, items[0].text, items[0].text);
    if (!extent) return extent.error();
    out.accesses.push_back(*extent);
    out.name = std::string(trim(args.substr(items[0].end)));
    if (out.name.empty())
      return make_error("racetrack:label: the name after " + std::string(items[0].text) + " is empty");
  } else if (verb == "op") {
    out.verb = AnnotationVerb::kOp;
    if (items.empty()) return make_error("racetrack:op: expected <name> <access>...");
    out.name = std::string(items[0].text);
    if (auto status = parse_accesses(verb, items, 1, out.accesses, &out.stream); !status)
      return status.error();
  } else if (verb == "op-out") {
    out.verb = AnnotationVerb::kOpOutputs;
    if (items.empty()) return make_error("racetrack:op-out: expected at least one access");
    if (auto status = parse_accesses(verb, items, 0, out.accesses); !status) return status.error();
  } else if (verb == "stack") {
    out.verb = AnnotationVerb::kStack;
    out.name = std::string(trim(args));
    if (out.name.empty()) return make_error("racetrack:stack: the stack text is empty");
  } else if (verb == "block-alloc" || verb == "block-free") {
    out.verb = verb == "block-alloc" ? AnnotationVerb::kBlockAlloc : AnnotationVerb::kBlockFree;
    if (items.empty() || items.size() > 2)
      return make_error("racetrack:" + std::string(verb) + ": expected 0x<address>:<bytes> [s=0x<stream>]");
    auto extent = parse_extent(verb, 1, items[0].text, items[0].text);
    if (!extent) return extent.error();
    out.accesses.push_back(*extent);
    if (items.size() == 2) {
      if (!is_stream_item(items[1].text))
        return item_error(verb, 2, items[1].text, "expected s=0x<stream>");
      if (auto status = parse_stream(verb, 2, items[1].text, out.stream); !status) return status.error();
    }
  } else if (verb == "external") {
    out.verb = AnnotationVerb::kExternal;
    if (items.size() < 2) return make_error("racetrack:external: expected <agent> <access>... [e=0x<event>]");
    out.name = std::string(items[0].text);
    std::vector<Item> agent_and_accesses = items;  // the agent, then the accesses
    if (agent_and_accesses.back().text.substr(0, 2) == "e=") {
      const std::string_view value = agent_and_accesses.back().text.substr(2);
      if (value.size() < 3 || value.substr(0, 2) != "0x" || !parse_number(value.substr(2), 16, out.event))
        return item_error(verb, items.size(), agent_and_accesses.back().text, "event is not e=0x<hex>");
      agent_and_accesses.pop_back();
    }
    if (agent_and_accesses.size() < 2)
      return make_error("racetrack:external: expected at least one access after the agent");
    if (auto status = parse_accesses(verb, agent_and_accesses, 1, out.accesses); !status)
      return status.error();
  } else if (verb == "external-done") {
    out.verb = AnnotationVerb::kExternalDone;
    if (items.size() != 1) return make_error("racetrack:external-done: expected <agent>");
    out.name = std::string(items[0].text);
  } else {
    return make_error(
        "racetrack: unknown verb '" + std::string(verb) +
        "' (expected kernel, host, label, op, op-out, stack, block-alloc, block-free, external or "
        "external-done)");
  }
  return std::optional<ParsedAnnotation>(std::move(out));
}

}  // namespace racetrack::capture
