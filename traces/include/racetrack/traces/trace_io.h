// Reading and writing traces in any of the three encodings of one schema:
// binary container (.rtrace, streamed chunk by chunk), protobuf text format
// (.pbtxt / .txtpb) and JSON (.json). Text and JSON hold the whole trace as a
// single Chunk.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "racetrack/traces/container.h"

namespace racetrack {

enum class Encoding { kBinary, kText, kJson };

// By content for existing files (the binary magic), else by extension.
Encoding encoding_for_read(const std::string& path);
// By extension: .pbtxt/.txtpb/.textproto -> text, .json -> JSON, else binary.
Encoding encoding_for_write(const std::string& path);

class Validator;

struct ReadOptions {
  // Check every chunk by the rules of `racetrack validate` as it is read;
  // the first broken rule is a read error ("... (racetrack validate FILE
  // lists every problem)"), so no command analyses a trace validate rejects.
  bool validate = true;
  // A trace without a single op is an error at its end: a header-only or
  // empty trace must not pass as "no hazard".
  bool require_ops = true;
};

// A stream of chunks from a file of any encoding.
class TraceSource {
 public:
  static Result<TraceSource> open(const std::string& path, ReadOptions options = {});
  // Raw access for tools that report problems themselves (validate, dump,
  // info) or that re-read a file already checked (second passes, seeks).
  static Result<TraceSource> open_unchecked(const std::string& path) { return open(path, {false, false}); }
  TraceSource(TraceSource&&) noexcept;
  TraceSource& operator=(TraceSource&&) noexcept;
  ~TraceSource();

  // False at a clean end; errors carry the file name and offset.
  Result<bool> next(v1::Chunk& out);
  // The fast path: the next chunk, valid until the next call; nullptr at a
  // clean end.
  Result<const v1::Chunk*> read();
  // read() in its three steps, for a reader that validates on another thread
  // (PrefetchingSource): decode() gives the next chunk unvalidated, or
  // nullptr at the end; admit() validates a chunk decode() gave (in order,
  // once each; it touches nothing decode() does, so the two may run at
  // once); at_end() is the end's rule, once every chunk is admitted.
  Result<const v1::Chunk*> decode();
  Status admit(const v1::Chunk& chunk, uint64_t at);
  Status at_end() const;
  // Keeps the last `n` chunks read() returned valid (see ChunkReader).
  void keep_chunks(size_t n) {
    if (binary_) binary_->keep_chunks(n);
  }
  // ChunkReader::prefault_some, for a consumer waiting on the thread that
  // reads (PrefetchingSource); safe beside that thread's decode().
  bool prefault_some() { return binary_ && binary_->prefault_some(); }
  Encoding encoding() const { return encoding_; }
  const std::string& path() const { return path_; }
  // Bytes consumed so far and total, for progress reporting.
  uint64_t position() const;
  uint64_t size() const { return size_; }
  // Ops read so far.
  uint64_t ops_read() const { return ops_; }

 private:
  TraceSource();
  std::string path_;
  Encoding encoding_ = Encoding::kBinary;
  std::optional<ChunkReader> binary_;
  std::optional<v1::Chunk> whole_;  // text/JSON, handed out once
  bool whole_taken_ = false;
  uint64_t size_ = 0;
  ReadOptions options_;
  std::unique_ptr<Validator> validator_;
  uint64_t ops_ = 0;
};

// Reads a whole trace into one chunk (entities and ops of every chunk merged).
Result<v1::Chunk> load_trace(const std::string& path, ReadOptions options = {});

// Writes a whole trace in the encoding the extension names.
Status save_trace(const v1::Chunk& trace, const std::string& path, WriterOptions options = {});

// Streams `in_path` to `out_path` (the encoding its extension names),
// passing every chunk through `transform`; text and JSON outputs are
// gathered into one chunk.
Status transform_trace(const std::string& in_path, const std::string& out_path,
                       const std::function<const v1::Chunk&(const v1::Chunk&)>& transform);

// Appends `from`'s entities and ops to `into` (header taken if `into` has none).
void append_chunk(v1::Chunk& into, const v1::Chunk& from);

}  // namespace racetrack
