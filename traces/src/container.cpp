#include "racetrack/traces/container.h"

#include <unistd.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "decoded_size.h"
#include "racetrack/traces/prefault.h"

namespace racetrack {
namespace {

void put_u32(unsigned char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

uint32_t get_u32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

// A decoded synth or captured chunk takes about five times its raw
// (decompressed) bytes in an arena: the first one's estimate.
constexpr uint64_t kDecodedPerRawByte = 5;
// prefault_some() maps in this much at a time, so the consumer is back when
// the chunk it waits for is ready.
constexpr size_t kPrefaultPiece = 256 << 10;

bool chunk_is_empty(const v1::Chunk& c) {
  return !c.has_header() && c.strings_size() == 0 && c.streams_size() == 0 && c.events_size() == 0 &&
         c.threads_size() == 0 && c.regions_size() == 0 && c.ops_size() == 0 && c.modules_size() == 0 &&
         c.values_size() == 0;
}

}  // namespace

TraceWriter::TraceWriter(FilePtr file, std::string path, WriterOptions options)
    : file_(std::move(file)), path_(std::move(path)), options_(options) {}

Result<TraceWriter> TraceWriter::create(const std::string& path, WriterOptions options) {
  std::optional<OutputFile> output;
  if (!options.in_place) {
    auto temp = OutputFile::create(path);
    if (!temp) return temp.error();
    output.emplace(std::move(*temp));
  }
  FilePtr file(std::fopen(output ? output->temp_path().c_str() : path.c_str(), "wb"));
  if (!file) return Error{"cannot create: " + std::string(std::strerror(errno)), {}, path};
  unsigned char header[kFileHeaderSize];
  std::memcpy(header, kMagic, sizeof kMagic);
  header[6] = kFormatVersion & 0xFF;
  header[7] = kFormatVersion >> 8;
  if (std::fwrite(header, 1, sizeof header, file.get()) != sizeof header)
    return Error{"write failed", 0, path};
  TraceWriter writer(std::move(file), path, options);
  writer.output_ = std::move(output);
  writer.offset_ = kFileHeaderSize;
  return writer;
}

Status TraceWriter::write_frame(const v1::Chunk& chunk) {
  if (!file_) return Error{"writer is closed", offset_, path_};
  raw_.clear();
  if (!chunk.SerializeToString(&raw_)) return Error{"chunk does not serialize", offset_, path_};
  if (raw_.size() > kMaxFrameBytes)
    return Error{"chunk of " + std::to_string(raw_.size()) + " bytes exceeds the 256 MiB limit on a chunk",
                 offset_, path_};

  const char* stored = raw_.data();
  size_t stored_size = raw_.size();
  Codec codec = Codec::kNone;
  if (options_.compress) {
    stored_.resize(ZSTD_compressBound(raw_.size()));
    size_t n = ZSTD_compress(stored_.data(), stored_.size(), raw_.data(), raw_.size(), options_.zstd_level);
    if (ZSTD_isError(n)) return Error{std::string("zstd: ") + ZSTD_getErrorName(n), offset_, path_};
    stored = stored_.data();
    stored_size = n;
    codec = Codec::kZstd;
  }

  unsigned char frame[kFrameHeaderSize] = {};
  put_u32(frame, static_cast<uint32_t>(stored_size));
  put_u32(frame + 4, static_cast<uint32_t>(raw_.size()));
  frame[8] = static_cast<unsigned char>(codec);
  put_u32(frame + 12, crc32(stored, stored_size));
  if (std::fwrite(frame, 1, sizeof frame, file_.get()) != sizeof frame ||
      std::fwrite(stored, 1, stored_size, file_.get()) != stored_size)
    return Error{"write failed: " + std::string(std::strerror(errno)), offset_, path_};
  offset_ += sizeof frame + stored_size;
  ++chunks_;
  return Ok{};
}

Status TraceWriter::commit_if_full() {
  if (static_cast<size_t>(pending_.ops_size()) < options_.ops_per_chunk &&
      static_cast<size_t>(pending_.values_size()) < options_.ops_per_chunk)
    return Ok{};
  auto status = write_frame(pending_);
  pending_.Clear();
  return status;
}

Status TraceWriter::flush() {
  if (!chunk_is_empty(pending_)) {
    auto status = write_frame(pending_);
    pending_.Clear();
    if (!status) return status;
  }
  if (file_ && std::fflush(file_.get()) != 0) return Error{"flush failed", offset_, path_};
  return Ok{};
}

Status TraceWriter::write_chunk(const v1::Chunk& chunk) {
  if (!chunk_is_empty(pending_)) {
    auto status = write_frame(pending_);
    pending_.Clear();
    if (!status) return status;
  }
  return write_frame(chunk);
}

Status TraceWriter::close() {
  if (!file_) return Ok{};
  auto status = flush();
  if (std::fclose(file_.release()) != 0 && status) return Error{"close failed", offset_, path_};
  if (status && output_) return output_->commit();
  return status;
}

ChunkReader::ChunkReader(FilePtr file, uint64_t file_size, uint16_t version)
    : file_(std::move(file)), file_size_(file_size), version_(version) {}

Result<ChunkReader> ChunkReader::open(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Error{"cannot open: " + std::string(std::strerror(EISDIR)), {}, path};
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) return Error{"cannot open: " + std::string(std::strerror(errno)), {}, path};
  std::fseek(file.get(), 0, SEEK_END);
  const long size = std::ftell(file.get());
  std::fseek(file.get(), 0, SEEK_SET);
  unsigned char header[kFileHeaderSize];
  if (size < static_cast<long>(kFileHeaderSize) ||
      std::fread(header, 1, sizeof header, file.get()) != sizeof header)
    return Error{"too short to be a racetrack trace (" + std::to_string(size) + " bytes)", 0, path};
  if (std::memcmp(header, kMagic, sizeof kMagic) != 0)
    return Error{"not a racetrack trace: wrong magic (expected \"RTRACE\")", 0, path};
  const uint16_t version = static_cast<uint16_t>(header[6] | header[7] << 8);
  if (version != kFormatVersion)
    return Error{"unsupported format version " + std::to_string(version) + " (this build reads " +
                     std::to_string(kFormatVersion) + ")",
                 6, path};
  return ChunkReader(std::move(file), static_cast<uint64_t>(size), version);
}

Result<std::string_view> ChunkReader::read_frame(bool& at_end) {
  at_end = offset_ == file_size_;
  if (at_end) return std::string_view();
  const uint64_t at = offset_;
  unsigned char frame[kFrameHeaderSize];
  if (file_size_ - at < kFrameHeaderSize || std::fread(frame, 1, sizeof frame, file_.get()) != sizeof frame)
    return make_error("truncated chunk: " + std::to_string(file_size_ - at) +
                          " bytes left, a frame header needs " + std::to_string(kFrameHeaderSize),
                      at);
  const uint32_t stored_size = get_u32(frame);
  const uint32_t raw_size = get_u32(frame + 4);
  const auto codec = static_cast<Codec>(frame[8]);
  const uint32_t crc = get_u32(frame + 12);
  if (codec != Codec::kNone && codec != Codec::kZstd)
    return make_error("corrupt chunk: unknown codec " + std::to_string(frame[8]), at);
  if (frame[9] || frame[10] || frame[11])
    return make_error("corrupt chunk: reserved frame bytes are not zero", at);
  if (stored_size > kMaxFrameBytes || raw_size > kMaxFrameBytes)
    return make_error("corrupt chunk: frame sizes " + std::to_string(stored_size) + " / " +
                          std::to_string(raw_size) + " are impossible (a chunk holds at most 256 MiB)",
                      at);
  if (file_size_ - at - kFrameHeaderSize < stored_size)
    return make_error("truncated chunk: frame needs " + std::to_string(stored_size) + " bytes, file has " +
                          std::to_string(file_size_ - at - kFrameHeaderSize),
                      at);
  stored_.resize(stored_size);
  if (std::fread(stored_.data(), 1, stored_size, file_.get()) != stored_size)
    return make_error("read failed", at);
  if (crc32(stored_.data(), stored_size) != crc) return make_error("corrupt chunk: checksum mismatch", at);

  std::string_view raw(stored_.data(), stored_size);
  if (codec == Codec::kZstd) {
    // The frame header is outside the checksum: trust the size only when
    // zstd's own frame says the same.
    const unsigned long long content = ZSTD_getFrameContentSize(stored_.data(), stored_size);
    if (content == ZSTD_CONTENTSIZE_ERROR) return make_error("corrupt chunk: zstd cannot decompress it", at);
    if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != raw_size)
      return make_error("corrupt chunk: frame header and zstd frame disagree on the size", at);
    if (auto inflated = inflate(raw_size, at); !inflated) return inflated.error();
    raw = std::string_view(raw_.data(), raw_size);
  } else if (raw_size != stored_size) {
    return make_error("corrupt chunk: raw and stored sizes differ without compression", at);
  }
  if (auto bounded = check_decoded_size(raw, at); !bounded) return bounded.error();
  offset_ = at + kFrameHeaderSize + stored_size;
  return raw;
}

void ChunkReader::ZstdFree::operator()(ZSTD_DCtx* d) const {
  ZSTD_freeDCtx(d);
}

Status ChunkReader::inflate(uint32_t raw_size, uint64_t at) {
  if (!zstd_) {
    zstd_.reset(ZSTD_createDCtx());
    if (!zstd_ || ZSTD_isError(ZSTD_DCtx_setParameter(zstd_.get(), ZSTD_d_windowLogMax, kMaxZstdWindowLog)))
      return make_error("zstd: cannot create a decoder", at);
  }
  ZSTD_DCtx_reset(zstd_.get(), ZSTD_reset_session_only);
  // The output grows with what the frame really holds, not with the size
  // the frame header claims: a tiny frame that claims 256 MiB and holds
  // nothing allocates nothing.
  ZSTD_inBuffer in{stored_.data(), stored_.size(), 0};
  size_t produced = 0;
  raw_.resize(std::min<size_t>(raw_size, std::max<size_t>(size_t{64} << 10, 4 * stored_.size())));
  for (;;) {
    if (produced == raw_.size() && raw_.size() < raw_size)
      raw_.resize(std::min<size_t>(raw_size, 2 * raw_.size()));
    // Once the declared size is reached, one more byte would be too many.
    char overflow = 0;
    const bool full = produced == raw_.size();
    ZSTD_outBuffer out =
        full ? ZSTD_outBuffer{&overflow, 1, 0} : ZSTD_outBuffer{raw_.data(), raw_.size(), produced};
    const size_t left = ZSTD_decompressStream(zstd_.get(), &out, &in);
    if (ZSTD_isError(left)) {
      if (ZSTD_getErrorCode(left) == ZSTD_error_frameParameter_windowTooLarge)
        return make_error("corrupt chunk: its zstd frame needs a window larger than 2^" +
                              std::to_string(kMaxZstdWindowLog) + " bytes, racetrack's limit",
                          at);
      return make_error("corrupt chunk: zstd cannot decompress it", at);
    }
    if (full && out.pos > 0)
      return make_error("corrupt chunk: the zstd frame holds more than the " + std::to_string(raw_size) +
                            " bytes its frame header declares",
                        at);
    if (!full) produced = out.pos;
    if (left == 0 && in.pos == in.size) break;  // every frame complete
    if (in.pos == in.size && out.pos < out.size)
      return make_error("corrupt chunk: zstd cannot decompress it (the frame is cut short)", at);
  }
  if (produced != raw_size)
    return make_error("corrupt chunk: the zstd frame holds " + std::to_string(produced) +
                          " bytes, its frame header "
                          "declares " +
                          std::to_string(raw_size),
                      at);
  return Ok{};
}

Status ChunkReader::check_decoded_size(std::string_view raw, uint64_t at) const {
  // Below this no chunk can decode into more than the limit (a byte of wire
  // format becomes at most ~70 bytes in memory).
  if (raw.size() <= (kMaxDecodedChunkBytes >> 7)) return Ok{};
  const uint64_t bound = decoded_size_bound(raw, v1::Chunk::descriptor(), kMaxDecodedChunkBytes);
  if (bound <= kMaxDecodedChunkBytes) return Ok{};
  return make_error("chunk of " + std::to_string(raw.size()) + " bytes would take more than " +
                        std::to_string(kMaxDecodedChunkBytes >> 20) +
                        " MiB once decoded, racetrack's limit on a chunk",
                    at);
}

Result<bool> ChunkReader::next(v1::Chunk& out) {
  const uint64_t at = offset_;
  bool at_end = false;
  auto raw = read_frame(at_end);
  if (!raw) return raw.error();
  if (at_end) return false;
  out.Clear();
  if (!out.ParseFromArray(raw->data(), static_cast<int>(raw->size()))) {
    offset_ = at;
    return make_error("corrupt chunk: protobuf cannot decode it", at);
  }
  return true;
}

Result<const v1::Chunk*> ChunkReader::read() {
  const uint64_t at = offset_;
  bool at_end = false;
  auto raw = read_frame(at_end);
  if (!raw) return raw.error();
  if (at_end) return static_cast<const v1::Chunk*>(nullptr);
  ChunkArena& slot = arenas_[next_arena_];
  next_arena_ = (next_arena_ + 1) % arenas_.size();
  if (!slot.arena) {
    if (!slot.block) slot.block = std::make_unique_for_overwrite<char[]>(block_size());
    google::protobuf::ArenaOptions options;
    options.initial_block = slot.block.get();
    options.initial_block_size = block_size();
    slot.arena = std::make_unique<google::protobuf::Arena>(options);
  } else {
    slot.arena->Reset();
  }
  auto* chunk = google::protobuf::Arena::CreateMessage<v1::Chunk>(slot.arena.get());
  if (!chunk->ParseFromArray(raw->data(), static_cast<int>(raw->size()))) {
    offset_ = at;
    return make_error("corrupt chunk: protobuf cannot decode it", at);
  }
  if (arenas_.size() > 1) {
    const uint64_t used = slot.arena->SpaceUsed();
    if (used > prefault_->chunk_bytes.load(std::memory_order_relaxed))
      prefault_->chunk_bytes.store(used, std::memory_order_relaxed);
  }
  return static_cast<const v1::Chunk*>(chunk);
}

size_t ChunkReader::block_size() const {
  // Decoded chunks take a few times their file size; a writer's chunk of
  // 32k ops fits in 32 MiB. Small traces get a small block.
  return std::clamp<uint64_t>(file_size_ * 8, 1u << 20, 32u << 20);
}

void ChunkReader::keep_chunks(size_t n) {
  if (n > arenas_.size()) arenas_.resize(n);
  // Allocated now, while no reader thread runs: prefault_some() may then
  // touch any of them (untouched, they take no memory).
  for (ChunkArena& slot : arenas_)
    if (!slot.block) slot.block = std::make_unique_for_overwrite<char[]>(block_size());
  // The next frame's header tells prefault_some() what to expect.
  unsigned char frame[kFrameHeaderSize];
  if (pread(fileno(file_.get()), frame, sizeof frame, static_cast<off_t>(offset_)) == sizeof frame) {
    prefault_->frame_bytes.store(kFrameHeaderSize + get_u32(frame), std::memory_order_relaxed);
    prefault_->chunk_bytes.store(kDecodedPerRawByte * get_u32(frame + 4), std::memory_order_relaxed);
  }
}

bool ChunkReader::prefault_some() {
  Prefault& p = *prefault_;
  const uint64_t chunk_bytes = std::min<uint64_t>(p.chunk_bytes.load(std::memory_order_relaxed), block_size());
  const uint64_t frame_bytes = p.frame_bytes.load(std::memory_order_relaxed);
  for (; p.slot < arenas_.size(); ++p.slot, p.done = 0) {
    // Not for chunks the file is too short to hold (judged by the first).
    if (chunk_bytes == 0 || kFileHeaderSize + p.slot * frame_bytes >= file_size_) return false;
    if (p.done >= chunk_bytes) continue;
    const size_t piece = std::min<uint64_t>(kPrefaultPiece, chunk_bytes - p.done);
    if (!populate_writable(arenas_[p.slot].block.get() + p.done, piece)) {
      p.slot = arenas_.size();  // not on this kernel
      return false;
    }
    p.done += piece;
    return true;
  }
  return false;
}

Status ChunkReader::seek(uint64_t offset) {
  if (offset < kFileHeaderSize || offset > file_size_ ||
      std::fseek(file_.get(), static_cast<long>(offset), SEEK_SET) != 0)
    return make_error("cannot seek to offset " + std::to_string(offset), offset);
  offset_ = offset;
  return Ok{};
}

bool is_binary_trace(const std::string& path) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  char head[sizeof kMagic];
  return file && std::fread(head, 1, sizeof head, file.get()) == sizeof head &&
         std::memcmp(head, kMagic, sizeof kMagic) == 0;
}

}  // namespace racetrack
