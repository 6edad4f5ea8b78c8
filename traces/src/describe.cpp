#include "racetrack/traces/describe.h"

#include <array>
#include <cstdio>

#include "racetrack/traces/extents.h"

namespace racetrack {
namespace {

constexpr std::array<std::string_view, kOpKindCount> kKindNames = {
    "none",  "kernel", "memcpy", "memset", "record",   "wait",       "sync",   "query",
    "alloc", "free",   "hostfn", "graph",  "annotate", "hostaccess", "capture"};

std::string access_text(const v1::Access& a, const TraceTables& tables) {
  std::string out(mode_name(a.mode()));
  out += ' ';
  if (a.region()) {
    out += tables.region_label(a.region());
    if (a.offset()) out += "+" + std::to_string(a.offset());
  } else {
    out += hex(a.address());
  }
  out += " " + format_bytes(a.size());
  if (a.precision() != v1::PRECISION_EXACT) out += " (" + std::string(precision_name(a.precision())) + ")";
  return out;
}

void append_accesses(std::string& out, const google::protobuf::RepeatedPtrField<v1::Access>& accesses,
                     const TraceTables& tables) {
  for (const auto& a : accesses) out += "  [" + access_text(a, tables) + "]";
}

}  // namespace

OpKind op_kind(const v1::Op& op) {
  switch (op.what_case()) {
    case v1::Op::kKernel: return OpKind::kKernel;
    case v1::Op::kMemcpy: return OpKind::kMemcpy;
    case v1::Op::kMemset: return OpKind::kMemset;
    case v1::Op::kRecord: return OpKind::kRecord;
    case v1::Op::kWait: return OpKind::kWait;
    case v1::Op::kSync: return OpKind::kSync;
    case v1::Op::kQuery: return OpKind::kQuery;
    case v1::Op::kAlloc: return OpKind::kAlloc;
    case v1::Op::kFree: return OpKind::kFree;
    case v1::Op::kHostFunc: return OpKind::kHostFunc;
    case v1::Op::kGraph: return OpKind::kGraph;
    case v1::Op::kAnnotation: return OpKind::kAnnotation;
    case v1::Op::kHostAccess: return OpKind::kHostAccess;
    case v1::Op::kCapture: return OpKind::kCapture;
    case v1::Op::WHAT_NOT_SET: return OpKind::kNone;
  }
  return OpKind::kNone;
}

std::string_view op_kind_name(OpKind kind) { return kKindNames[static_cast<size_t>(kind)]; }

OpKind op_kind_from_name(std::string_view name) {
  for (size_t i = 1; i < kKindNames.size(); ++i)
    if (kKindNames[i] == name) return static_cast<OpKind>(i);
  return OpKind::kNone;
}

std::string_view role_name(v1::StreamRole role) {
  switch (role) {
    case v1::ROLE_COMPUTE: return "compute";
    case v1::ROLE_D2H: return "d2h";
    case v1::ROLE_H2D: return "h2d";
    case v1::ROLE_OTHER: return "other";
    case v1::ROLE_COMM: return "comm";
    default: return "unknown";
  }
}

std::string_view flags_name(v1::StreamFlags flags) {
  switch (flags) {
    case v1::STREAM_NON_BLOCKING: return "non-blocking";
    case v1::STREAM_LEGACY_DEFAULT: return "legacy-default";
    case v1::STREAM_PER_THREAD_DEFAULT: return "per-thread-default";
    default: return "blocking";
  }
}

std::string_view direction_name(v1::CopyDirection d) {
  switch (d) {
    case v1::COPY_H2D: return "H2D";
    case v1::COPY_D2H: return "D2H";
    case v1::COPY_D2D: return "D2D";
    case v1::COPY_H2H: return "H2H";
    case v1::COPY_P2P: return "P2P";
    default: return "default";
  }
}

std::string_view space_name(v1::AddressSpace s) {
  switch (s) {
    case v1::SPACE_PINNED_HOST: return "pinned";
    case v1::SPACE_PAGEABLE_HOST: return "pageable";
    case v1::SPACE_MANAGED: return "managed";
    default: return "device";
  }
}

std::string_view mode_name(v1::AccessMode m) {
  switch (m) {
    case v1::MODE_READ: return "R";
    case v1::MODE_WRITE: return "W";
    case v1::MODE_READ_WRITE: return "RW";
    default: return "?";
  }
}

std::string_view precision_name(v1::Precision p) {
  switch (p) {
    case v1::PRECISION_BLOCK: return "block";
    case v1::PRECISION_SEGMENT: return "segment";
    case v1::PRECISION_INFERRED: return "inferred";
    default: return "exact";
  }
}

std::string_view origin_name(v1::RegionOrigin o) {
  switch (o) {
    case v1::ORIGIN_CUDA_MALLOC: return "cudaMalloc";
    case v1::ORIGIN_POOL_ASYNC: return "pool";
    case v1::ORIGIN_HOST_ALLOC: return "cudaHostAlloc";
    case v1::ORIGIN_VMM_MAP: return "vmm";
    case v1::ORIGIN_FRAMEWORK_BLOCK: return "framework-block";
    case v1::ORIGIN_ANNOTATION: return "annotation";
    case v1::ORIGIN_HOST_MALLOC: return "malloc";
    case v1::ORIGIN_STATIC: return "static";
    case v1::ORIGIN_CUDA_ARRAY: return "cudaArray";
    default: return "unknown";
  }
}

v1::CopyDirection effective_direction(const v1::Memcpy& c) {
  if (c.direction() != v1::COPY_DEFAULT) return c.direction();
  const bool dst_host = c.dst_space() == v1::SPACE_PINNED_HOST || c.dst_space() == v1::SPACE_PAGEABLE_HOST;
  const bool src_host = c.src_space() == v1::SPACE_PINNED_HOST || c.src_space() == v1::SPACE_PAGEABLE_HOST;
  if (src_host && dst_host) return v1::COPY_H2H;
  if (src_host) return v1::COPY_H2D;
  if (dst_host) return v1::COPY_D2H;
  return c.dst_device() == c.src_device() ? v1::COPY_D2D : v1::COPY_P2P;
}

std::string format_bytes(uint64_t bytes) {
  char buf[32];
  if (bytes < 1024) return std::to_string(bytes) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes) / 1024;
  int u = 0;
  // From 1023.95 on, "%.1f" would print "1024.0" of this unit: use the next.
  while (v >= 1023.95 && u < 3) {
    v /= 1024;
    ++u;
  }
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::string hex(uint64_t value) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(value));
  return buf;
}

std::string op_title(const v1::Op& op, const TraceTables& t) {
  std::string kind(op_kind_name(op_kind(op)));
  switch (op.what_case()) {
    case v1::Op::kKernel: return kind + " " + std::string(t.string(op.kernel().name()));
    case v1::Op::kMemcpy: return kind + " " + std::string(direction_name(effective_direction(op.memcpy())));
    case v1::Op::kRecord: return kind + " " + t.event_label(op.record().event());
    case v1::Op::kWait: return kind + " " + t.event_label(op.wait().event());
    case v1::Op::kSync:
      switch (op.sync().kind()) {
        case v1::SYNC_EVENT: return "sync event " + t.event_label(op.sync().event());
        case v1::SYNC_DEVICE: return "sync device";
        default: return "sync stream";
      }
    case v1::Op::kQuery:
      return op.query().kind() == v1::QUERY_EVENT ? "query " + t.event_label(op.query().event())
                                                  : "query stream";
    case v1::Op::kAlloc: return kind + " " + t.region_label(op.alloc().region());
    case v1::Op::kFree: return kind + " " + t.region_label(op.free().region());
    case v1::Op::kHostFunc: return kind + " " + std::string(t.string(op.host_func().name()));
    case v1::Op::kAnnotation:
      if (op.annotation().agent()) return kind + " " + std::string(t.string(op.annotation().agent()));
      return kind + " " + std::string(t.string(op.annotation().text()));
    case v1::Op::kCapture: return op.capture().phase() == v1::CAPTURE_BEGIN ? "capture begin" : "capture end";
    default: return kind;
  }
}

std::string describe_op(const v1::Op& op, const TraceTables& t) {
  std::string out = "#" + std::to_string(op.seq()) + " " + op_title(op, t);
  switch (op.what_case()) {
    case v1::Op::kKernel:
      append_accesses(out, op.kernel().accesses(), t);
      if (op.kernel().accesses_size() == 0 && op.kernel().arg_words_size() > 0)
        out += "  args=" + std::to_string(op.kernel().arg_words_size());
      if (op.kernel().programmatic_stream_serialization()) out += "  pdl";
      if (op.kernel().programmatic_event())
        out += "  programmatic event " + t.event_label(op.kernel().programmatic_event()) +
               (op.kernel().programmatic_event_at_block_start() ? " (at block start)" : "");
      break;
    case v1::Op::kMemcpy: {
      const auto& c = op.memcpy();
      out += " " + format_bytes(c.bytes()) + " " + hex(c.src()) + " (" + std::string(space_name(c.src_space())) +
             ") -> " + hex(c.dst()) + " (" + std::string(space_name(c.dst_space())) + ")" +
             (c.async() ? " async" : " blocking");
      if (c.has_pitched()) out += "  " + describe_shape(c.pitched(), true);
      if (c.symbol()) out += "  symbol " + std::string(t.string(c.symbol()));
      if (c.dst_unknown()) out += "  dst unknown";
      if (c.src_unknown()) out += "  src unknown";
      break;
    }
    case v1::Op::kMemset:
      out += " " + format_bytes(op.memset().bytes()) + " at " + hex(op.memset().dst()) + " = " +
             std::to_string(op.memset().value());
      if (op.memset().has_pitched()) out += "  " + describe_shape(op.memset().pitched(), false);
      break;
    case v1::Op::kQuery: out += op.query().ready() ? " -> ready" : " -> not ready"; break;
    case v1::Op::kAlloc:
    case v1::Op::kFree: {
      const uint32_t id = op.has_alloc() ? op.alloc().region() : op.free().region();
      if (const RegionFacts* r = t.region_facts(id))
        out += " " + format_bytes(r->size) + " at " + hex(r->base) + " (" +
               std::string(space_name(static_cast<v1::AddressSpace>(r->space))) + ", " +
               std::string(origin_name(static_cast<v1::RegionOrigin>(r->origin))) + ")";
      break;
    }
    case v1::Op::kHostFunc: append_accesses(out, op.host_func().accesses(), t); break;
    case v1::Op::kHostAccess: append_accesses(out, op.host_access().accesses(), t); break;
    case v1::Op::kGraph:
      out += " " + std::to_string(op.graph().nodes_size()) + " nodes";
      if (op.graph().captured_seq()) out += " captured at #" + std::to_string(op.graph().captured_seq());
      break;
    case v1::Op::kCapture:
      if (op.capture().graph_id()) out += " graph " + std::to_string(op.capture().graph_id());
      break;
    case v1::Op::kAnnotation:
      if (op.annotation().has_access()) {
        std::string where = access_text(op.annotation().access(), t);
        out += "  [" + where + "]";
      }
      if (op.annotation().done_event()) out += "  done at " + t.event_label(op.annotation().done_event());
      break;
    default: break;
  }
  if (op.stream()) out += "  on " + t.stream_label(op.stream());
  if (const v1::HostThread* th = t.thread(op.thread()); th && th->name())
    out += "  thread " + std::string(t.string(th->name()));
  else
    out += "  thread " + std::to_string(op.thread());
  if (op.nvtx()) out += "  nvtx " + std::string(t.string(op.nvtx()));
  if (op.stack()) out += "  stack " + std::string(t.string(op.stack()));
  if (op.has_device_start())
    out += "  dev " + std::to_string(op.device_start()) + ".." + std::to_string(op.device_end()) + " ns";
  return out;
}

}  // namespace racetrack
