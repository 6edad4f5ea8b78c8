#include "racetrack/diverge/values_trace.h"

#include <cstdio>
#include <fstream>
#include <unordered_map>

#include "racetrack/traces/container.h"
#include "racetrack/traces/tables.h"

namespace racetrack::diverge {
namespace {

const char* const kPhases[] = {"", "forward", "backward", "recompute", "optimizer"};

v1::ValuePhase phase_of(const std::string& name) {
  for (int p = 1; p <= 4; ++p)
    if (name == kPhases[p]) return static_cast<v1::ValuePhase>(p);
  return v1::PHASE_UNKNOWN;
}

// Interns strings into the chunk being written (ids are global: 1-based
// over every chunk's strings, after the `defined` ones already there).
class Strings {
 public:
  explicit Strings(uint32_t defined = 0) : defined_(defined) {}
  uint32_t id(const std::string& s, v1::Chunk& chunk) {
    if (s.empty()) return 0;
    auto [it, added] = ids_.try_emplace(s, static_cast<uint32_t>(defined_ + ids_.size() + 1));
    if (added) chunk.add_strings(s);
    return it->second;
  }

 private:
  uint32_t defined_;
  std::unordered_map<std::string, uint32_t> ids_;
};

void add_digests(const std::vector<Digest>& from, google::protobuf::RepeatedPtrField<v1::ValueDigest>& to,
                 Strings& strings, v1::Chunk& chunk) {
  for (const Digest& d : from) {
    v1::ValueDigest& out = *to.Add();
    out.set_hash(std::stoull(d.hash, nullptr, 16));  // the reader checked it is hex
    out.set_dtype(strings.id(d.dtype, chunk));
    out.set_numel(d.numel);
    out.set_sum(d.sum);
    out.set_absmax(d.absmax);
    out.set_nan(d.nan);
    out.set_inf(d.inf);
  }
}

std::vector<Digest> digests_of(const google::protobuf::RepeatedPtrField<v1::ValueDigest>& from,
                               const TraceTables& tables) {
  std::vector<Digest> out;
  for (const v1::ValueDigest& d : from) {
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(d.hash()));
    out.push_back(
        {hash, std::string(tables.string(d.dtype())), d.numel(), d.sum(), d.absmax(), d.nan(), d.inf()});
  }
  return out;
}

}  // namespace

bool is_values_record(const std::string& path) {
  if (path.size() >= 6 && path.compare(path.size() - 6, 6, ".jsonl") == 0) return true;
  std::ifstream in(path, std::ios::binary);
  std::string first;
  std::getline(in, first);
  return first.rfind("{", 0) == 0 && first.find("\"racetrack_values\"") != std::string::npos;
}

namespace {

// Adds values records to the chunks of a trace whose time origin and
// string count are given.
class ValuesAppender {
 public:
  ValuesAppender(int64_t origin, uint32_t strings_defined) : origin_(origin), strings_(strings_defined) {}

  void add(const ValueRecord& r, v1::Chunk& chunk) {
    v1::OperatorValues& v = *chunk.add_values();
    v.set_seq(next_seq_++);  // dense from 0 in file order, as the format wants
    v.set_phase(phase_of(r.phase));
    v.set_module(strings_.id(r.module, chunk));
    v.set_op(strings_.id(r.op, chunk));
    v.set_param(strings_.id(r.param, chunk));
    v.set_n(r.n);
    v.set_time(r.time_ns ? r.time_ns - origin_ : 0);
    v.set_thread(r.thread);
    std::string stack;
    for (const std::string& frame : r.stack) stack += (stack.empty() ? "" : " <- ") + frame;
    v.set_stack(strings_.id(stack, chunk));
    add_digests(r.in, *v.mutable_inputs(), strings_, chunk);
    add_digests(r.out, *v.mutable_outputs(), strings_, chunk);
  }

 private:
  int64_t origin_;
  Strings strings_;
  uint64_t next_seq_ = 0;
};

// Writes every record after what the writer holds, then closes it.
Status append_and_close(ValuesAppender& values, const ValuesRecord& record, TraceWriter& writer) {
  for (const ValueRecord& r : record.records) {
    values.add(r, writer.pending());
    if (auto s = writer.commit_if_full(); !s) return s;
  }
  return writer.close();
}

}  // namespace

Status write_values_trace(const ValuesRecord& record, const std::string& out, WriterOptions options) {
  const int64_t origin = record.records.empty() ? 0 : record.records.front().time_ns;
  ValuesAppender values(origin, 0);
  auto set_header = [&](v1::Chunk& chunk) {
    v1::Header& header = *chunk.mutable_header();
    header.set_format_version(kFormatVersion);
    header.set_producer("racetrack convert (values record, torch " + record.torch_version + ")");
    header.set_clock_domain(v1::CLOCK_DOMAIN_REALTIME);
    header.set_time_origin_ns(origin);
    header.set_rank(-1);
  };
  if (encoding_for_write(out) != Encoding::kBinary) {  // text and JSON: the trace is one message
    v1::Chunk whole;
    set_header(whole);
    for (const ValueRecord& r : record.records) values.add(r, whole);
    return save_trace(whole, out, options);
  }
  auto writer = TraceWriter::create(out, options);
  if (!writer) return writer.error();
  set_header(writer->pending());
  return append_and_close(values, record, *writer);
}

Status add_values_to_trace(const std::string& trace, const ValuesRecord& record) {
  auto source = TraceSource::open(trace);
  if (!source) return source.error();
  auto writer = TraceWriter::create(trace);  // a new file, renamed over the trace on close
  if (!writer) return writer.error();
  TraceTables tables;
  v1::Chunk chunk;
  for (;;) {
    auto more = source->next(chunk);
    if (!more) return more.error();
    if (!*more) break;
    tables.add(chunk);
    if (chunk.values_size() > 0) return Error{"the trace carries operator values already", {}, trace};
    if (auto s = writer->write_chunk(chunk); !s) return s;
  }
  ValuesAppender values(tables.header().time_origin_ns(), static_cast<uint32_t>(tables.string_count()));
  return append_and_close(values, record, *writer);
}

Result<ValuesRecord> read_values_trace(const std::string& path) {
  ReadOptions options;
  options.require_ops = false;  // a converted values record has no ops
  auto source = TraceSource::open(path, options);
  if (!source) return source.error();
  TraceTables tables;
  ValuesRecord out;
  v1::Chunk chunk;
  for (;;) {
    auto more = source->next(chunk);
    if (!more) return more.error();
    if (!*more) break;
    tables.add(chunk);
    const int64_t origin = tables.header().time_origin_ns();
    for (const v1::OperatorValues& v : chunk.values()) {
      ValueRecord r;
      r.seq = v.seq();
      r.phase = kPhases[v.phase() >= 1 && v.phase() <= 4 ? v.phase() : 0];
      r.module = std::string(tables.string(v.module()));
      r.op = std::string(tables.string(v.op()));
      r.param = std::string(tables.string(v.param()));
      r.n = v.n();
      r.time_ns = origin + v.time();
      r.thread = v.thread();
      if (v.stack()) r.stack = {std::string(tables.string(v.stack()))};
      r.in = digests_of(v.inputs(), tables);
      r.out = digests_of(v.outputs(), tables);
      out.records.push_back(std::move(r));
    }
  }
  if (out.records.empty())
    return Error{
        "the trace carries no operator values (record them with racetrack_torch.record_values() "
        "or capture --torch --values, then racetrack convert RECORD OUT)",
        {},
        path};
  return out;
}

Result<ValuesRecord> read_values_any(const std::string& path) {
  return is_values_record(path) ? read_values(path) : read_values_trace(path);
}

}  // namespace racetrack::diverge
