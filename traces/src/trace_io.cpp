#include "racetrack/traces/trace_io.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "racetrack/traces/foreign_formats.h"
#include "racetrack/traces/output_file.h"
#include "racetrack/traces/validate.h"

namespace racetrack {
namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

Result<std::string> slurp(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Error{"cannot open: " + std::string(std::strerror(EISDIR)), {}, path};
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open: " + std::string(std::strerror(errno)), {}, path};
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return Error{"read failed", {}, path};
  return s.str();
}

// Text-format parse errors carry line and column, not an offset.
class CollectingErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first.empty())
      first = "line " + std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
  }
  std::string first;
};

Result<v1::Chunk> parse_text(const std::string& path) {
  auto text = slurp(path);
  if (!text) return text.error();
  v1::Chunk chunk;
  google::protobuf::TextFormat::Parser parser;
  CollectingErrors errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(*text, &chunk)) return Error{"text format: " + errors.first, {}, path};
  return chunk;
}

Result<v1::Chunk> parse_json(const std::string& path) {
  auto text = slurp(path);
  if (!text) return text.error();
  v1::Chunk chunk;
  auto status = google::protobuf::util::JsonStringToMessage(*text, &chunk);
  if (!status.ok()) return Error{"JSON: " + status.ToString(), {}, path};
  return chunk;
}

// A file that fails to open as a trace may be another tool's: say so.
Error foreign_or(Error error, const std::string& path) {
  if (auto foreign = identify_foreign_trace(path)) return Error{*foreign, {}, path};
  return error;
}

template <typename Field>
void append_all(Field* into, const Field& from) {
  into->MergeFrom(from);
}

}  // namespace

Encoding encoding_for_write(const std::string& path) {
  if (ends_with(path, ".pbtxt") || ends_with(path, ".txtpb") || ends_with(path, ".textproto"))
    return Encoding::kText;
  if (ends_with(path, ".json")) return Encoding::kJson;
  return Encoding::kBinary;
}

Encoding encoding_for_read(const std::string& path) {
  if (is_binary_trace(path)) return Encoding::kBinary;
  const Encoding by_name = encoding_for_write(path);
  if (by_name != Encoding::kBinary) return by_name;
  // No magic and no telling extension: JSON if it looks like JSON, else
  // binary (so the reader reports the wrong magic).
  std::ifstream in(path);
  char c = 0;
  while (in.get(c) && std::isspace(static_cast<unsigned char>(c))) {
  }
  return c == '{' ? Encoding::kJson : Encoding::kBinary;
}

TraceSource::TraceSource() = default;
TraceSource::TraceSource(TraceSource&&) noexcept = default;
TraceSource& TraceSource::operator=(TraceSource&&) noexcept = default;
TraceSource::~TraceSource() = default;

Result<TraceSource> TraceSource::open(const std::string& path, ReadOptions options) {
  TraceSource source;
  source.path_ = path;
  source.options_ = options;
  if (options.validate) source.validator_ = std::make_unique<Validator>(1);
  source.encoding_ = encoding_for_read(path);
  if (source.encoding_ == Encoding::kBinary) {
    auto reader = ChunkReader::open(path);
    if (!reader) {
      reader.error().file = path;
      return foreign_or(reader.error(), path);
    }
    source.size_ = reader->file_size();
    source.binary_.emplace(std::move(*reader));
    return source;
  }
  auto chunk = source.encoding_ == Encoding::kText ? parse_text(path) : parse_json(path);
  if (!chunk) return foreign_or(chunk.error(), path);
  source.size_ = static_cast<uint64_t>(chunk->ByteSizeLong());
  source.whole_.emplace(std::move(*chunk));
  return source;
}

Status TraceSource::admit(const v1::Chunk& chunk, uint64_t at) {
  if (options_.require_ops && at == 0 && encoding_ != Encoding::kBinary && chunk.ByteSizeLong() == 0)
    return Error{"the trace is empty: it has no ops (and no header); there is nothing to analyse", {}, path_};
  ops_ += static_cast<uint64_t>(chunk.ops_size());
  if (!validator_) return Ok{};
  validator_->check(chunk, at);
  if (validator_->error_count() == 0) return Ok{};
  Error error = validator_->errors().front();
  error.file = path_;
  if (encoding_ != Encoding::kBinary) error.offset.reset();  // text has no chunk offsets
  error.message += " (racetrack validate " + path_ + " lists every problem)";
  return error;
}

Status TraceSource::at_end() const {
  if (options_.require_ops && ops_ == 0)
    return Error{
        "the trace has no ops: there is nothing to analyse (an empty or header-only trace must not pass "
        "as clean)",
        {},
        path_};
  return Ok{};
}

Result<bool> TraceSource::next(v1::Chunk& out) {
  const uint64_t at = position();
  if (binary_) {
    auto more = binary_->next(out);
    if (!more) more.error().file = path_;
    if (!more || !*more) {
      if (more && !*more)
        if (auto end = at_end(); !end) return end.error();
      return more;
    }
  } else {
    if (!whole_ || whole_taken_) {
      if (auto end = at_end(); !end) return end.error();
      return false;
    }
    out = std::move(*whole_);
    whole_.reset();
  }
  if (auto admitted = admit(out, at); !admitted) return admitted.error();
  return true;
}

Result<const v1::Chunk*> TraceSource::decode() {
  if (binary_) {
    auto got = binary_->read();
    if (!got) got.error().file = path_;
    return got;
  }
  if (!whole_ || whole_taken_) return static_cast<const v1::Chunk*>(nullptr);
  whole_taken_ = true;
  return &*whole_;
}

Result<const v1::Chunk*> TraceSource::read() {
  const uint64_t at = position();
  auto chunk = decode();
  if (!chunk) return chunk;
  if (!*chunk) {
    if (auto end = at_end(); !end) return end.error();
    return chunk;
  }
  if (auto admitted = admit(**chunk, at); !admitted) return admitted.error();
  return chunk;
}

uint64_t TraceSource::position() const {
  if (binary_) return binary_->offset();
  return whole_ && !whole_taken_ ? 0 : size_;
}

void append_chunk(v1::Chunk& into, const v1::Chunk& from) {
  if (from.has_header() && !into.has_header()) *into.mutable_header() = from.header();
  append_all(into.mutable_strings(), from.strings());
  append_all(into.mutable_streams(), from.streams());
  append_all(into.mutable_events(), from.events());
  append_all(into.mutable_threads(), from.threads());
  append_all(into.mutable_regions(), from.regions());
  append_all(into.mutable_ops(), from.ops());
  append_all(into.mutable_modules(), from.modules());
  append_all(into.mutable_values(), from.values());
}

Result<v1::Chunk> load_trace(const std::string& path, ReadOptions options) {
  auto source = TraceSource::open(path, options);
  if (!source) return source.error();
  v1::Chunk all;
  v1::Chunk chunk;
  for (;;) {
    auto more = source->next(chunk);
    if (!more) return more.error();
    if (!*more) break;
    if (source->encoding() != Encoding::kBinary) {
      all = std::move(chunk);
      continue;  // the end check (no ops) still runs
    }
    append_chunk(all, chunk);
  }
  return all;
}

Status save_trace(const v1::Chunk& trace, const std::string& path, WriterOptions options) {
  const Encoding encoding = encoding_for_write(path);
  if (encoding == Encoding::kBinary) {
    auto writer = TraceWriter::create(path, options);
    if (!writer) return writer.error();
    // Entities go first; ops follow in chunks of the usual size so a large
    // trace never becomes one huge frame.
    v1::Chunk& out = writer->pending();
    out = trace;
    out.clear_ops();
    for (const v1::Op& op : trace.ops()) {
      *out.add_ops() = op;
      auto status = writer->commit_if_full();
      if (!status) return status;
    }
    return writer->close();
  }
  std::string text;
  if (encoding == Encoding::kText) {
    google::protobuf::TextFormat::Printer printer;
    if (!printer.PrintToString(trace, &text)) return Error{"cannot print as text", {}, path};
  } else {
    google::protobuf::util::JsonPrintOptions json;
    json.add_whitespace = true;
    auto status = google::protobuf::util::MessageToJsonString(trace, &text, json);
    if (!status.ok()) return Error{"cannot print as JSON: " + status.ToString(), {}, path};
  }
  return write_file_atomically(path, text);
}

Status transform_trace(const std::string& in_path, const std::string& out_path,
                       const std::function<const v1::Chunk&(const v1::Chunk&)>& transform) {
  if (auto usable = check_output(out_path, {in_path}); !usable) return usable.error();
  auto source = TraceSource::open(in_path);
  if (!source) return source.error();
  const bool binary = encoding_for_write(out_path) == Encoding::kBinary;
  std::optional<TraceWriter> writer;
  if (binary) {
    auto created = TraceWriter::create(out_path);
    if (!created) return created.error();
    writer.emplace(std::move(*created));
  }
  v1::Chunk whole;
  for (;;) {
    auto chunk = source->read();
    if (!chunk) return chunk.error();
    if (!*chunk) break;
    const v1::Chunk& out = transform(**chunk);
    if (!binary) {
      append_chunk(whole, out);
    } else if (auto s = writer->write_chunk(out); !s) {
      return s;
    }
  }
  return binary ? writer->close() : save_trace(whole, out_path);
}

}  // namespace racetrack
