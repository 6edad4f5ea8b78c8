#include "racetrack/traces/foreign_formats.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string_view>

namespace racetrack {
namespace {

constexpr size_t kPrefixBytes = 1 << 20;  // enough to reach "traceEvents" past Kineto's device list

constexpr const char* kCapture =
    "; capture a racetrack trace instead: racetrack capture --torch -- python train.py "
    "(a CUDA program: racetrack capture -- ./app; docs/capture.md)";

bool has_extension(const std::string& path, std::initializer_list<std::string_view> extensions) {
  std::string name = std::filesystem::path(path).filename().string();
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return std::any_of(extensions.begin(), extensions.end(), [&](std::string_view e) {
    return name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0;
  });
}

std::string read_prefix(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes(kPrefixBytes, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return bytes;
}

// The first key of a JSON object ("traceEvents" in `{"traceEvents": [`).
std::string first_json_key(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i == text.size() || text[i] != '{') return {};
  for (++i; i < text.size() && std::isspace(static_cast<unsigned char>(text[i])); ++i) {
  }
  if (i == text.size() || text[i] != '"') return {};
  const size_t end = text.find('"', i + 1);
  return end == std::string_view::npos ? std::string() : std::string(text.substr(i + 1, end - i - 1));
}

// A racetrack JSON trace is one Chunk message: its fields, as protobuf's
// JSON printer names them.
bool is_chunk_field(const std::string& key) {
  for (const char* f : {"header", "strings", "streams", "events", "threads", "regions", "ops"})
    if (key == f) return true;
  return false;
}

std::optional<std::string> chrome_trace(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  // The array form of the Chrome trace format: [{"name": ..., "ph": "X", ...}, ...]
  if (i < text.size() && text[i] == '[' && text.find("\"ph\"") != std::string_view::npos)
    return "this is a Chrome trace (JSON array of trace events), not a racetrack trace";
  const std::string key = first_json_key(text);
  if (key.empty() || is_chunk_field(key)) return std::nullopt;
  if (key != "traceEvents" && text.find("\"traceEvents\"") == std::string_view::npos) return std::nullopt;
  const bool kineto = text.find("\"schemaVersion\"") != std::string_view::npos ||
                      text.find("\"deviceProperties\"") != std::string_view::npos;
  if (kineto)
    return "this is a PyTorch profiler trace (Chrome trace JSON with \"traceEvents\"), not a racetrack "
           "trace: it has kernel times but not the buffers each operation reads and writes, which racetrack "
           "needs";
  return "this is a Chrome trace JSON (\"traceEvents\": PyTorch profiler, chrome://tracing or racetrack "
         "export output), not a racetrack trace";
}

// A varint at `text[i]`; false when it runs off the end or past 10 bytes.
bool read_varint(std::string_view text, size_t& i, uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 70 && i < text.size(); shift += 7) {
    const auto byte = static_cast<unsigned char>(text[i++]);
    value |= uint64_t{byte & 0x7fu} << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

// A Perfetto trace is a protobuf `Trace`: repeated TracePacket (field 1,
// length-delimited). The first packet must parse as protobuf fields and end
// inside the file.
bool looks_like_perfetto(std::string_view text, uint64_t file_size) {
  size_t i = 0;
  uint64_t length = 0;
  if (text.empty() || text[i++] != 0x0a || !read_varint(text, i, length)) return false;
  if (length == 0 || i > file_size || length > file_size - i) return false;
  const size_t end = static_cast<size_t>(std::min<uint64_t>(i + length, text.size()));
  while (i < end) {
    uint64_t tag = 0, skip = 0;
    if (!read_varint(text, i, tag) || tag >> 3 == 0) return false;
    switch (tag & 7) {
      case 0:
        if (!read_varint(text, i, skip)) return false;
        break;
      case 1: i += 8; break;
      case 2:
        if (!read_varint(text, i, skip)) return false;
        i += static_cast<size_t>(std::min<uint64_t>(skip, file_size));
        break;
      case 5: i += 4; break;
      default: return false;
    }
  }
  return i == end || end == text.size();
}

}  // namespace

std::optional<std::string> identify_foreign_trace(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return std::nullopt;
  if (has_extension(path, {".ncu-rep"}))
    return "this is an Nsight Compute report, not a racetrack trace: it has metrics of single kernels, not "
           "the "
           "order of the work on the streams and the buffers each operation reads and writes, which "
           "racetrack "
           "needs" +
           std::string(kCapture);
  if (has_extension(path, {".nsys-rep", ".qdrep", ".qdstrm"}))
    return "this is an Nsight Systems report, not a racetrack trace: it has kernel and copy times but not "
           "the "
           "buffers each operation reads and writes, which racetrack needs" +
           std::string(kCapture);
  const std::string prefix = read_prefix(path);
  const std::string_view text(prefix);
  if (text.rfind(std::string_view("SQLite format 3\0", 16), 0) == 0)
    return std::string(
               text.find("CUPTI_ACTIVITY_KIND") != std::string_view::npos
                   ? "this is an Nsight Systems SQLite export (nsys export --type sqlite), not a racetrack "
                     "trace: it has kernel and copy times but not the buffers each operation reads and "
                     "writes, which racetrack needs"
                   : "this is an SQLite database, not a racetrack trace") +
           kCapture;
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
      static_cast<unsigned char>(text[1]) == 0x8b)
    return "this is a gzip-compressed file, not a racetrack trace (PyTorch profiler traces are often "
           ".pt.trace.json.gz)" +
           std::string(kCapture);
  if (auto chrome = chrome_trace(text)) return *chrome + kCapture;
  if (has_extension(path, {".pftrace", ".perfetto-trace", ".perfetto"}) || looks_like_perfetto(text, size))
    return "this is a Perfetto trace (protobuf TracePacket stream: a Perfetto capture or racetrack export "
           "output), not a racetrack trace" +
           std::string(kCapture);
  return std::nullopt;
}

}  // namespace racetrack
