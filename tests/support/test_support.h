// Helpers shared by the trace-library and CLI tests: per-test temporary
// directories, whole-file I/O, a standard trace that uses every op kind, and
// hand-made container frames for the error paths writers never produce.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "racetrack/traces/builder.h"
#include "racetrack/traces/container.h"
#include "racetrack/traces/describe.h"

namespace racetrack::testing {

namespace fs = std::filesystem;

// A directory of its own for the running test, removed when it ends. Named
// after the test and the process so ctest -j runs never share files.
class TempDir {
 public:
  TempDir() {
#ifdef RACETRACK_TEST_TMPDIR
    const fs::path base = RACETRACK_TEST_TMPDIR;
#else
    const fs::path base = fs::temp_directory_path() / "racetrack-tests";
#endif
    std::string name = "test";
    if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info())
      name = std::string(info->test_suite_name()) + "." + info->name();
    std::replace(name.begin(), name.end(), '/', '_');  // parameterised names
    root_ = base / (name + "." + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string path(std::string_view name) const {
    return (root_ / name).string();
  }
  const fs::path& root() const {
    return root_;
  }

 private:
  fs::path root_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Replaces the content of `path`. An existing file is overwritten in place and
// then cut to size, not truncated first: ext4 flushes a file truncated to zero
// and rewritten when it is closed, which made the thousands of rewrites in the
// truncation and corruption tests take seconds.
inline void write_bytes(const std::string& path, std::string_view bytes) {
  std::error_code ec;
  const bool exists = fs::is_regular_file(path, ec);
  {
    std::fstream out(
        path, exists ? std::ios::binary | std::ios::in | std::ios::out : std::ios::binary | std::ios::out);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good()) << "cannot write " << path;
  }
  if (exists && fs::file_size(path) > bytes.size()) fs::resize_file(path, bytes.size());
}

// Adds a small but complete program to `b`: every op kind, NVTX ranges,
// device times (including a zero start, to exercise field presence), named and
// unnamed streams, two host threads, pinned/pageable/device memory, a
// stream-ordered allocation and an address reused after cudaFree. Each
// iteration adds 18 ops; the tail adds 8 more.
inline void add_standard_ops(TraceBuilder& b, int iterations) {
  v1::Header& h = b.header();
  h.set_host("testhost");
  h.set_pid(4242);
  h.add_command_line("train.py");
  h.add_command_line("--steps=2");
  h.set_time_origin_ns(1'700'000'000'000'000'000);
  h.set_driver_version(13000);
  h.set_runtime_version(12080);
  v1::Device& gpu = *h.add_devices();
  gpu.set_id(0);
  gpu.set_name("Test GPU");
  gpu.set_cc_major(9);
  gpu.set_memory_bytes(80ull << 30);
  gpu.set_h2d_copy_engines(1);
  gpu.set_d2h_copy_engines(1);

  const ThreadId main_thread = b.thread("main");
  const ThreadId worker = b.thread("worker");
  const StreamId compute = b.stream("compute", v1::ROLE_COMPUTE);
  const StreamId offload = b.stream("offload", v1::ROLE_D2H);
  const StreamId reload = b.stream("", v1::ROLE_H2D, v1::STREAM_BLOCKING, -1);
  const StreamId legacy = b.legacy_stream();
  const Buffer x = b.device_buffer("X", 4096);
  const Buffer y = b.device_buffer("Y", 8192);
  const Buffer p = b.pinned_buffer("P", 4096);
  const Buffer q = b.pageable_buffer("Q", 1024);
  const EventId e_off = b.event("e_off");
  const EventId e_rel = b.event("e_rel");

  for (int i = 0; i < iterations; ++i) {
    b.push_range("fwd");
    b.push_range("layer" + std::to_string(i));
    b.kernel(compute, "gemm", {x}, {y}, {.duration_ns = 5000});
    b.pop_range();
    b.pop_range();
    b.record(e_off, compute);
    b.wait(offload, e_off);
    b.memcpy(offload, p, x);
    b.record(e_rel, offload);
    b.sync_event(e_rel);
    b.host_read(p.slice(0, 64));
    b.host_write(p.slice(64, 64));
    b.memcpy(reload, x, p);
    b.memset(compute, y.slice(0, 256), 7);
    b.query(e_off, true);
    b.query_stream(offload, false);
    const Buffer tmp = b.alloc("tmp" + std::to_string(i), 2048, v1::ORIGIN_POOL_ASYNC, compute);
    b.kernel(compute, "relu", {tmp}, {tmp}, {.known_modes = false});
    b.free(tmp, compute);
    b.host_func(offload, "log_step", {p.slice(0, 16)});
    b.on_thread(worker);
    b.sync(compute);
    b.on_thread(main_thread);
    b.mark("step");
  }

  // The graph's (empty) capture and its launch: the builder has no call for
  // either, so turn kernel ops into them.
  for (v1::CapturePhase phase : {v1::CAPTURE_BEGIN, v1::CAPTURE_END}) {
    b.kernel(compute, "capture", {}, {});
    b.last_op().mutable_capture()->set_phase(phase);
  }
  b.last_op().mutable_capture()->set_graph_id(77);
  const uint64_t captured_at = b.last_op().seq();
  b.kernel(compute, "graph_launch", {}, {});
  v1::GraphLaunch& graph = *b.last_op().mutable_graph();
  graph.set_graph_id(77);
  graph.set_captured_seq(captured_at);
  v1::GraphNode& n0 = *graph.add_nodes();
  n0.set_index(0);
  n0.mutable_kernel()->set_name(b.intern("g_fwd"));
  v1::Access& a = *n0.mutable_kernel()->add_accesses();
  a.set_region(x.region);
  a.set_size(x.size);
  a.set_mode(v1::MODE_READ_WRITE);
  v1::GraphNode& n1 = *graph.add_nodes();
  n1.set_index(1);
  n1.mutable_memcpy()->set_dst(p.base);
  n1.mutable_memcpy()->set_src(x.base);
  n1.mutable_memcpy()->set_bytes(128);
  n1.add_deps(0);

  b.memcpy(legacy, q, y.slice(0, 1024), /*async=*/false);
  const Buffer seg = b.alloc("segment", 1 << 20, v1::ORIGIN_CUDA_MALLOC);
  b.cuda_free(seg);
  b.alloc("segment again", 1 << 20, v1::ORIGIN_CUDA_MALLOC, {}, &seg);
  b.sync_device();
  b.last_op().set_device_start(0);  // present but zero: must survive every encoding
  b.last_op().set_device_end(0);
  b.mark("label Y");
  b.last_op().mutable_annotation()->set_kind(v1::ANNOTATE_LABEL_REGION);
  b.last_op().mutable_annotation()->set_region(y.region);
  b.mark("after the graph");
  b.last_op().mutable_annotation()->set_kind(v1::ANNOTATE_ORDER);
  b.last_op().mutable_annotation()->set_ordered_after_seq(b.last_op().seq() - 3);
}

inline constexpr int kOpsPerIteration = 18;
inline constexpr int kTailOps = 10;

inline v1::Chunk standard_trace(int iterations = 2) {
  TraceBuilder b;
  add_standard_ops(b, iterations);
  return b.take();
}

// The first op of a kind (the standard trace has every kind).
inline v1::Op& first_op(v1::Chunk& trace, OpKind kind) {
  for (v1::Op& op : *trace.mutable_ops())
    if (op_kind(op) == kind) return op;
  ADD_FAILURE() << "no op of kind " << op_kind_name(kind);
  return *trace.mutable_ops(0);
}

// The 8-byte file header, with a chosen version.
inline std::string file_header(uint16_t version = kFormatVersion) {
  std::string out(kMagic, sizeof kMagic);
  out += static_cast<char>(version & 0xFF);
  out += static_cast<char>(version >> 8);
  return out;
}

inline void append_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

// A frame as docs/trace-format.md lays it out; the optional fields override
// what a correct writer would store.
struct FrameSpec {
  std::string stored{};
  uint8_t codec = 0;
  std::optional<uint32_t> raw_size{};  // default: stored size
  std::optional<uint32_t> crc{};       // default: crc32 of stored
  std::optional<uint32_t> stored_size{};
  uint8_t reserved = 0;
};

inline std::string frame(const FrameSpec& f) {
  std::string out;
  append_u32(out, f.stored_size.value_or(static_cast<uint32_t>(f.stored.size())));
  append_u32(out, f.raw_size.value_or(static_cast<uint32_t>(f.stored.size())));
  out += static_cast<char>(f.codec);
  out += static_cast<char>(f.reserved);
  out += '\0';
  out += '\0';
  append_u32(out, f.crc.value_or(racetrack::crc32(f.stored.data(), f.stored.size())));
  return out + f.stored;
}

// An uncompressed frame holding `chunk`.
inline std::string frame_of(const v1::Chunk& chunk) {
  return frame({.stored = chunk.SerializeAsString()});
}

// Writes `trace` as a binary file with `ops_per_chunk` ops per frame and
// returns where each frame ends, as the writer saw it (the first entry is the
// end of the file header).
inline std::vector<uint64_t> write_chunked(const v1::Chunk& trace, const std::string& path, bool compress,
                                           int ops_per_chunk) {
  std::vector<uint64_t> ends;
  auto writer = TraceWriter::create(path, {.compress = compress});
  EXPECT_TRUE(writer.ok()) << writer.error().describe();
  if (!writer) return ends;
  ends.push_back(writer->bytes_written());
  v1::Chunk chunk = trace;
  chunk.clear_ops();
  for (const v1::Op& op : trace.ops()) {
    *chunk.add_ops() = op;
    if (chunk.ops_size() == ops_per_chunk) {
      EXPECT_TRUE(writer->write_chunk(chunk).ok());
      ends.push_back(writer->bytes_written());
      chunk.Clear();
    }
  }
  if (chunk.ops_size() > 0) {
    EXPECT_TRUE(writer->write_chunk(chunk).ok());
    ends.push_back(writer->bytes_written());
  }
  EXPECT_TRUE(writer->close().ok());
  return ends;
}

// Every *.pbtxt under the samples directory, sorted.
inline std::vector<fs::path> sample_files() {
  std::vector<fs::path> out;
#ifdef RACETRACK_SAMPLES_DIR
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(RACETRACK_SAMPLES_DIR, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".pbtxt") out.push_back(entry.path());
#endif
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace racetrack::testing
