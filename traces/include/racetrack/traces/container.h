// The binary trace container: an 8-byte file header ("RTRACE" + little-endian
// uint16 format version), then framed Chunk messages. Each frame is a 16-byte
// header (stored size, raw size, codec, crc32 of the stored bytes) followed by
// the stored bytes (a serialized Chunk, zstd-compressed when codec is 1).
// Writers append whole frames, so a reader of a killed capture keeps every
// complete chunk; readers stream one chunk at a time.
#pragma once

#include <google/protobuf/arena.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "racetrack.pb.h"
#include "racetrack/traces/output_file.h"
#include "racetrack/traces/result.h"

typedef struct ZSTD_DCtx_s ZSTD_DCtx;

namespace racetrack {

// The schema's messages are racetrack::v1::* (racetrack.pb.h), so `v1::`
// names them in every namespace inside racetrack, no alias needed.

inline constexpr char kMagic[6] = {'R', 'T', 'R', 'A', 'C', 'E'};
inline constexpr uint16_t kFormatVersion = 1;
inline constexpr size_t kFileHeaderSize = 8;
inline constexpr size_t kFrameHeaderSize = 16;
// Limits on one chunk, so that no frame makes a reader allocate more than
// its bytes justify (docs/trace-format.md): a frame's stored and raw
// (decompressed) sizes are at most 256 MiB, and the decoded Chunk may take
// at most 512 MiB of memory (a bound computed from the wire format before
// parsing). Writers never come near either: they write 32768 ops a chunk.
inline constexpr uint32_t kMaxFrameBytes = 256u << 20;
inline constexpr uint64_t kMaxDecodedChunkBytes = uint64_t{512} << 20;
// zstd frames may ask for a window of at most 2^25 bytes (what levels up to
// 20 use); a larger one is refused before the decoder allocates it.
inline constexpr int kMaxZstdWindowLog = 25;

enum class Codec : uint8_t { kNone = 0, kZstd = 1 };

struct WriterOptions {
  bool compress = true;
  int zstd_level = 3;
  // The writer's pending chunk is written once it holds this many ops.
  size_t ops_per_chunk = 32768;
  // Write straight to the path instead of through a temporary file renamed
  // into place on close(): for captures, whose trace must keep every flushed
  // chunk when the program is killed. Outputs of commands never set it.
  bool in_place = false;
};

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

class TraceWriter {
 public:
  static Result<TraceWriter> create(const std::string& path, WriterOptions options = {});

  // The chunk being filled. Add entities and ops to it, then call
  // commit_if_full() after each op (cheap) or flush() to force a write.
  v1::Chunk& pending() { return pending_; }
  Status commit_if_full();
  // Writes the pending chunk (if it holds anything) and flushes the file.
  Status flush();
  // Writes one complete chunk as it is (after flushing the pending one).
  Status write_chunk(const v1::Chunk& chunk);
  // Flushes and closes; a writer not written in place renames its temporary
  // file over the path only here (one destroyed without close() leaves the
  // old file untouched).
  Status close();

  uint64_t bytes_written() const { return offset_; }
  uint64_t chunks_written() const { return chunks_; }

 private:
  TraceWriter(FilePtr file, std::string path, WriterOptions options);
  Status write_frame(const v1::Chunk& chunk);

  std::optional<OutputFile> output_;  // unset when written in place
  FilePtr file_;
  std::string path_;
  WriterOptions options_;
  v1::Chunk pending_;
  std::string raw_;
  std::vector<char> stored_;
  uint64_t offset_ = 0;
  uint64_t chunks_ = 0;
};

class ChunkReader {
 public:
  static Result<ChunkReader> open(const std::string& path);

  // Reads the next chunk into `out`. Returns false at a clean end of file;
  // an error names the offset of the bad frame.
  Result<bool> next(v1::Chunk& out);
  // The fast path for whole-trace passes: the next chunk, parsed into an
  // arena the reader owns and valid until the next call (or, after
  // keep_chunks(n), the next n calls); nullptr at a clean end of file.
  Result<const v1::Chunk*> read();
  // Keeps the last `n` chunks read() returned valid (n arenas in turn), so a
  // reader thread can decode ahead of the chunk its consumer still uses.
  // Call it before any read().
  void keep_chunks(size_t n);
  // Maps in one more piece of the arenas the first n chunks will be decoded
  // into (as much as the largest chunk so far took), so that the
  // thread calling read() does not fault it in: for a consumer thread with
  // nothing else to do. Safe beside read() on another thread: it changes
  // page tables, no byte (prefault.h). False when there is nothing to do.
  bool prefault_some();

  uint16_t version() const { return version_; }
  // Offset of the next frame to read (after a failure: of the bad frame).
  uint64_t offset() const { return offset_; }
  // Continues at a frame that offset() named earlier (random access to the
  // chunks of a file indexed in a first pass).
  Status seek(uint64_t offset);
  uint64_t file_size() const { return file_size_; }

 private:
  ChunkReader(FilePtr file, uint64_t file_size, uint16_t version);
  // The next frame's serialized Chunk (decompressed, checksum verified);
  // empty view with `at_end` set at a clean end of file.
  Result<std::string_view> read_frame(bool& at_end);

  // Decompresses stored_ into raw_, stopping at the declared raw size.
  Status inflate(uint32_t raw_size, uint64_t at);
  // Refuses a chunk that would take more than kMaxDecodedChunkBytes.
  Status check_decoded_size(std::string_view raw, uint64_t at) const;

  struct ZstdFree {
    void operator()(ZSTD_DCtx* d) const;
  };
  FilePtr file_;
  uint64_t file_size_ = 0;
  uint16_t version_ = 0;
  uint64_t offset_ = kFileHeaderSize;
  std::vector<char> stored_;
  std::vector<char> raw_;
  std::unique_ptr<ZSTD_DCtx, ZstdFree> zstd_;
  // Chunks decode into arenas over reusable blocks, taken in turn: no malloc
  // per op.
  struct ChunkArena {
    std::unique_ptr<char[]> block;
    std::unique_ptr<google::protobuf::Arena> arena;
  };
  std::vector<ChunkArena> arenas_ = std::vector<ChunkArena>(1);
  size_t next_arena_ = 0;
  size_t block_size() const;
  // What read() tells prefault_some(), and how far it got.
  struct Prefault {
    std::atomic<uint64_t> chunk_bytes{0};  // the largest chunk's memory (first: an estimate)
    std::atomic<uint64_t> frame_bytes{0};  // the first frame's bytes in the file
    size_t slot = 0, done = 0;             // the consumer's side
  };
  std::unique_ptr<Prefault> prefault_ = std::make_unique<Prefault>();
};

// True when the first bytes of `path` are the binary container's magic.
bool is_binary_trace(const std::string& path);

uint32_t crc32(const void* data, size_t size);

}  // namespace racetrack
