#include "racetrack/traces/validate.h"

#include <functional>

#include "racetrack/traces/describe.h"
#include "racetrack/traces/extents.h"
#include "racetrack/traces/sha256.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack {
namespace {

std::string op_prefix(const v1::Op& op) {
  return "op seq " + std::to_string(op.seq()) + ": ";
}

}  // namespace

Validator::Validator(size_t max_errors) : max_errors_(max_errors) {
  tables_.set_regions(RegionDetail::kNone);
  region_size_.push_back(0);
}

void Validator::report(std::string message) {
  ++error_count_;
  if (errors_.size() < max_errors_) errors_.push_back(Error{std::move(message), offset_, {}});
}

template <typename Name>
void Validator::check_string(uint32_t id, const Name& name) {
  if (id > tables_.string_count())
    report(std::string(name()) + " names string " + std::to_string(id) + ", but only " +
           std::to_string(tables_.string_count()) + " strings are defined");
}

// `known`: how many of these entities earlier chunks defined.
template <typename Field>
static void check_dense(const Field& field, size_t known, const char* what,
                        const std::function<void(std::string)>& report) {
  size_t next = known + 1;
  for (const auto& entity : field) {
    if (entity.id() != next)
      report(std::string(what) + " id " + std::to_string(entity.id()) + " is out of order: expected " +
             std::to_string(next) + " (ids are dense and start at 1)");
    else
      ++next;
  }
}

void Validator::check_entities(const v1::Chunk& chunk) {
  const auto rep = [this](std::string m) { report(std::move(m)); };
  if (chunk.has_header()) {
    if (chunks_ != 0)
      report("a header appears in chunk " + std::to_string(chunks_) + "; only the first chunk may have one");
    else if (chunk.header().format_version() != kFormatVersion)
      report("header format_version is " + std::to_string(chunk.header().format_version()) + ", expected " +
             std::to_string(kFormatVersion));
  } else if (chunks_ == 0) {
    report("the first chunk has no header");
  }
  // Validate against the tables as they will be once this chunk is added,
  // so entities may refer to strings defined in the same chunk.
  check_dense(chunk.streams(), tables_.streams().size(), "stream", rep);
  check_dense(chunk.events(), tables_.events().size(), "event", rep);
  check_dense(chunk.threads(), tables_.threads().size(), "host thread", rep);
  check_dense(chunk.regions(), region_size_.size() - 1, "region", rep);
  for (const auto& r : chunk.regions())
    if (r.id() == region_size_.size()) region_size_.push_back(r.size());
  tables_.add(chunk);
  const auto& header = tables_.header();
  for (const auto& s : chunk.streams()) {
    check_string(s.name(), [&] { return "stream " + std::to_string(s.id()) + " name"; });
    if (header.devices_size() > 0) {
      bool found = false;
      for (const auto& d : header.devices()) found |= d.id() == s.device();
      if (!found)
        report("stream " + std::to_string(s.id()) + " is on device " + std::to_string(s.device()) +
               ", which the header does not list");
    }
  }
  for (const auto& e : chunk.events())
    check_string(e.name(), [&] { return "event " + std::to_string(e.id()) + " name"; });
  for (const auto& t : chunk.threads())
    check_string(t.name(), [&] { return "thread " + std::to_string(t.id()) + " name"; });
  for (const auto& r : chunk.regions()) {
    const auto what = [&] { return "region " + std::to_string(r.id()); };
    check_string(r.label(), [&] { return what() + " label"; });
    if (r.size() == 0) report(what() + " is empty (size 0)");
    if (r.base() + r.size() < r.base())
      report(what() + " overflows the address space: base " + hex(r.base()) + " + size " +
             std::to_string(r.size()));
    if (r.free_seq() && r.alloc_seq() && r.free_seq() <= r.alloc_seq())
      report(what() + " is freed (seq " + std::to_string(r.free_seq()) + ") before it is allocated (seq " +
             std::to_string(r.alloc_seq()) + ")");
  }
  region_state_.resize(region_size_.size(), 0);
  check_modules(chunk);
  check_values(chunk);
}

// Operator values (docs/diff.md): dense seqs, a known phase, an operator
// name, and string ids that exist.
void Validator::check_values(const v1::Chunk& chunk) {
  for (const v1::OperatorValues& v : chunk.values()) {
    const std::string what = "operator values " + std::to_string(v.seq());
    if (v.seq() != values_)
      report(what + " is out of order: expected seq " + std::to_string(values_) + " (seqs are dense from 0)");
    values_ = v.seq() + 1;
    if (v.phase() == v1::PHASE_UNKNOWN || !v1::ValuePhase_IsValid(v.phase()))
      report(what + " has no known phase (" + std::to_string(v.phase()) + ")");
    if (v.op() == 0) report(what + " names no operator");
    check_string(v.op(), [&] { return what + " op"; });
    check_string(v.module(), [&] { return what + " module"; });
    check_string(v.param(), [&] { return what + " param"; });
    check_string(v.stack(), [&] { return what + " stack"; });
    for (const auto* digests : {&v.inputs(), &v.outputs()})
      for (const v1::ValueDigest& d : *digests) check_string(d.dtype(), [&] { return what + " dtype"; });
  }
}

void Validator::check_modules(const v1::Chunk& chunk) {
  for (const auto& m : chunk.modules()) {
    const std::string what = "module " + std::to_string(m.id());
    if (m.id() != modules_ + 1) {
      report(what + " is out of order: expected id " + std::to_string(modules_ + 1) +
             " (ids are dense and start at 1)");
      continue;
    }
    ++modules_;
    check_string(m.name(), [&] { return what + " name"; });
    if (!is_sha256_hex(m.sha256())) {
      report(what + " sha256 '" + m.sha256().substr(0, 80) + "' is not 64 lower-case hex digits");
    } else {
      if (!m.image().empty() && Sha256::hex(m.image().data(), m.image().size()) != m.sha256())
        report(what + " image does not hash to its sha256 " + m.sha256());
      if (!module_hashes_.insert(m.sha256()).second)
        report(what + " repeats the content of an earlier module (sha256 " + m.sha256() +
               "); each is stored once");
    }
    if (m.image().empty() && m.functions_size() == 0 && !m.image_omitted())
      report(what + " has neither an image nor analysed functions");
    if (m.image_omitted() && !m.image().empty()) report(what + " has an image but says it was left out");
    std::set<uint32_t> names;
    for (const auto& f : m.functions()) {
      check_string(f.name(), [&] { return what + " function name"; });
      if (f.name() == 0)
        report(what + " has a function without a name");
      else if (!names.insert(f.name()).second)
        report(what + " lists function " + std::string(tables_.string(f.name())) + " twice");
      for (int w = 0; w < f.words_size(); ++w)
        if (!v1::WordMode_IsValid(f.words(w))) {
          report(what + " function " + std::string(tables_.string(f.name())) + " word " +
                 std::to_string(w + 1) + " has mode " + std::to_string(f.words(w)) +
                 ", which is none of WORD_NONE..WORD_ESCAPES");
          break;
        }
    }
  }
}

void Validator::report_bad_ref(const v1::Op& op, const char* what, uint32_t id) {
  if (id == 0)
    report(op_prefix(op) + "names no " + what);
  else
    report(op_prefix(op) + "names " + what + " " + std::to_string(id) + ", which is not defined");
}

void Validator::check_range(const v1::Op& op, std::string_view where, const char* what, uint64_t address,
                            uint64_t size) {
  if (address + size < address)
    report(op_prefix(op) + std::string(where) + what + " range " + hex(address) + " + " +
           std::to_string(size) + " overflows the address space");
}

// A pitched shape is checked whole (extents.h); a contiguous one by its range.
void Validator::check_copy(const v1::Op& op, const v1::Memcpy& c, std::string_view where) {
  const auto prefix = [&] { return op_prefix(op) + std::string(where); };
  if (c.has_pitched()) {
    if (auto e = shape_error(c)) report(prefix() + *e);
  } else {
    check_range(op, where, "memcpy destination", c.dst(), c.bytes());
    check_range(op, where, "memcpy source", c.src(), c.bytes());
  }
  check_string(c.symbol(), [&] { return prefix() + "memcpy symbol"; });
  if (c.dst_unknown() && c.src_unknown()) report(prefix() + "memcpy has neither side known");
}

void Validator::check_memset(const v1::Op& op, const v1::Memset& m, std::string_view where) {
  const auto prefix = [&] { return op_prefix(op) + std::string(where); };
  if (m.has_pitched()) {
    if (auto e = shape_error(m)) report(prefix() + *e);
  } else {
    check_range(op, where, "memset", m.dst(), m.bytes());
  }
  const uint32_t element = m.element_size();
  if (element > 1 && element != 2 && element != 4)
    report(prefix() + "memset element size " + std::to_string(element) + " is none of 1, 2, 4");
  else if (element > 1 && (m.has_pitched() ? m.pitched().width() : m.bytes()) % element != 0)
    report(prefix() + "memset row of " + std::to_string(m.has_pitched() ? m.pitched().width() : m.bytes()) +
           " bytes is not a whole number of " + std::to_string(element) + "-byte elements");
}

void Validator::check_access(const v1::Op& op, const v1::Access& a) {
  if (a.region()) {
    if (!check_ref(op, "region", a.region(), region_size_.size() - 1)) return;
    const uint64_t region_size = region_size_[a.region()];
    if (a.offset() + a.size() < a.offset() || a.offset() + a.size() > region_size)
      report(op_prefix(op) + "access [" + std::to_string(a.offset()) + ", +" + std::to_string(a.size()) +
             ") lies outside region " + std::to_string(a.region()) + " of " + std::to_string(region_size) +
             " bytes");
  } else {
    check_range(op, {}, "access", a.address(), a.size());
  }
  if (a.size() == 0) report(op_prefix(op) + "access of 0 bytes");
  if (!v1::Precision_IsValid(a.precision()))
    report(op_prefix(op) + "access of unknown precision " + std::to_string(a.precision()));
}

void Validator::check_op(const v1::Op& op) {
  ++ops_;
  if (any_op_ && op.seq() <= last_seq_)
    report(op_prefix(op) + "seq does not increase (previous op was seq " + std::to_string(last_seq_) + ")");
  any_op_ = true;
  last_seq_ = op.seq();

  // Names the op only when a string id is out of range: building the message
  // for every op was a fifth of the decode time.
  auto check_op_string = [&](const char* what, uint32_t id) {
    check_string(id, [&] { return op_prefix(op) + what; });
  };
  check_ref(op, "host thread", op.thread(), tables_.threads().size());
  check_op_string("nvtx", op.nvtx());
  check_op_string("stack", op.stack());
  if (op.host_end() < op.host_start()) report(op_prefix(op) + "host end is before host start");
  if (op.has_device_start() != op.has_device_end())
    report(op_prefix(op) + "has only one of device start and device end");
  else if (op.has_device_start() && op.device_end() < op.device_start())
    report(op_prefix(op) + "device end " + std::to_string(op.device_end()) + " is before device start " +
           std::to_string(op.device_start()));

  const size_t streams = tables_.streams().size();
  const size_t events = tables_.events().size();
  const size_t regions = region_size_.size() - 1;
  auto needs_stream = [&] { check_ref(op, "stream", op.stream(), streams); };
  auto stream_if_set = [&] {
    if (op.stream()) check_ref(op, "stream", op.stream(), streams);
  };

  switch (op.what_case()) {
    case v1::Op::kKernel: {
      needs_stream();
      const auto& k = op.kernel();
      check_op_string("kernel name", k.name());
      if (k.module() > modules_)
        report(op_prefix(op) + "names module " + std::to_string(k.module()) + ", which is not defined");
      if (k.grid_size() > 3 || k.block_size() > 3)
        report(op_prefix(op) + "grid and block have at most 3 dimensions");
      for (const auto& a : k.accesses()) {
        check_access(op, a);
        if (a.arg_index() > static_cast<uint32_t>(k.arg_words_size()))
          report(op_prefix(op) + "access names argument word " + std::to_string(a.arg_index()) + " of " +
                 std::to_string(k.arg_words_size()));
      }
      if (k.programmatic_event()) check_ref(op, "programmatic event", k.programmatic_event(), events);
      if (k.programmatic_event_at_block_start() && !k.programmatic_event())
        report(op_prefix(op) + "sets programmatic_event_at_block_start without a programmatic_event");
      break;
    }
    case v1::Op::kMemcpy:
      needs_stream();
      check_copy(op, op.memcpy(), "");
      break;
    case v1::Op::kMemset:
      needs_stream();
      check_memset(op, op.memset(), "");
      break;
    case v1::Op::kRecord:
      needs_stream();
      check_ref(op, "event", op.record().event(), events);
      break;
    case v1::Op::kWait:
      needs_stream();
      check_ref(op, "event", op.wait().event(), events);
      break;
    case v1::Op::kSync:
      if (op.sync().kind() == v1::SYNC_STREAM)
        needs_stream();
      else
        stream_if_set();
      if (op.sync().kind() == v1::SYNC_EVENT) check_ref(op, "event", op.sync().event(), events);
      break;
    case v1::Op::kQuery:
      if (op.query().kind() == v1::QUERY_STREAM) {
        needs_stream();
      } else {
        stream_if_set();
        check_ref(op, "event", op.query().event(), events);
      }
      break;
    case v1::Op::kAlloc:
    case v1::Op::kFree: {
      const bool alloc = op.has_alloc();
      const uint32_t id = alloc ? op.alloc().region() : op.free().region();
      const bool ordered = alloc ? op.alloc().stream_ordered() : op.free().stream_ordered();
      if (ordered)
        needs_stream();
      else
        stream_if_set();
      if (!check_ref(op, "region", id, regions)) break;
      uint8_t& state = region_state_[id];
      if (alloc && state != 0)
        report(op_prefix(op) + "allocates region " + std::to_string(id) + " a second time");
      if (!alloc && state == 2)
        report(op_prefix(op) + "frees region " + std::to_string(id) + " a second time");
      state = alloc ? 1 : 2;
      break;
    }
    case v1::Op::kHostFunc:
      needs_stream();
      check_op_string("host function name", op.host_func().name());
      for (const auto& a : op.host_func().accesses()) check_access(op, a);
      break;
    case v1::Op::kGraph: {
      needs_stream();
      const auto& nodes = op.graph().nodes();
      for (int i = 0; i < nodes.size(); ++i) {
        if (nodes[i].index() != static_cast<uint32_t>(i))
          report(op_prefix(op) + "graph node " + std::to_string(i) + " has index " +
                 std::to_string(nodes[i].index()));
        for (uint32_t dep : nodes[i].deps())
          if (dep >= static_cast<uint32_t>(i))
            report(op_prefix(op) + "graph node " + std::to_string(i) + " depends on node " +
                   std::to_string(dep) + ", which does not come before it");
        for (const auto& a : nodes[i].kernel().accesses()) check_access(op, a);
        if (nodes[i].has_memcpy() || nodes[i].has_memset()) {
          const std::string node = "graph node " + std::to_string(i) + " ";
          if (nodes[i].has_memcpy()) check_copy(op, nodes[i].memcpy(), node);
          if (nodes[i].has_memset()) check_memset(op, nodes[i].memset(), node);
        }
        // Graphs express PDL as programmatic edges, which the format has not.
        if (nodes[i].kernel().programmatic_stream_serialization())
          report(op_prefix(op) + "graph node " + std::to_string(i) +
                 " sets programmatic_stream_serialization, which only stream launches carry");
        if (nodes[i].kernel().programmatic_event())
          report(op_prefix(op) + "graph node " + std::to_string(i) +
                 " sets programmatic_event, which only stream launches carry");
        if (nodes[i].kernel().module() > modules_)
          report(op_prefix(op) + "graph node " + std::to_string(i) + " names module " +
                 std::to_string(nodes[i].kernel().module()) + ", which is not defined");
      }
      if (const uint64_t at = op.graph().captured_seq()) {
        auto end = capture_ends_.find(at);
        if (end == capture_ends_.end())
          report(op_prefix(op) + "graph launch says it was captured at seq " + std::to_string(at) +
                 ", which is not an earlier capture end");
        else if (end->second && end->second != op.graph().graph_id())
          report(op_prefix(op) + "graph launch of graph " + std::to_string(op.graph().graph_id()) +
                 " says it was captured at seq " + std::to_string(at) + ", which captured graph " +
                 std::to_string(end->second));
      }
      break;
    }
    case v1::Op::kCapture: {
      needs_stream();
      const bool begin = op.capture().phase() == v1::CAPTURE_BEGIN;
      if (begin && !capturing_.insert(op.stream()).second)
        report(op_prefix(op) + "begins a capture on stream " + std::to_string(op.stream()) +
               ", which is already capturing");
      if (!begin && capturing_.erase(op.stream()) == 0)
        report(op_prefix(op) + "ends a capture on stream " + std::to_string(op.stream()) +
               ", which has no capture begun");
      if (!begin) capture_ends_[op.seq()] = op.capture().graph_id();
      break;
    }
    case v1::Op::kAnnotation: {
      stream_if_set();
      const auto& a = op.annotation();
      check_op_string("annotation text", a.text());
      if (a.region()) check_ref(op, "region", a.region(), regions);
      if (a.kind() == v1::ANNOTATE_ORDER && a.ordered_after_seq() >= op.seq())
        report(op_prefix(op) + "declares an order after seq " + std::to_string(a.ordered_after_seq()) +
               ", which is not earlier");
      const bool external =
          a.kind() == v1::ANNOTATE_EXTERNAL_ACCESS || a.kind() == v1::ANNOTATE_EXTERNAL_DONE;
      check_op_string("annotation agent", a.agent());
      if (external && a.agent() == 0) report(op_prefix(op) + "external access annotation names no agent");
      if (a.kind() == v1::ANNOTATE_EXTERNAL_ACCESS) {
        if (!a.has_access() || a.access().size() == 0)
          report(op_prefix(op) + "external access annotation has no bytes (access.size is 0)");
        else
          check_access(op, a.access());
        if (a.done_event()) check_ref(op, "event", a.done_event(), events);
      }
      break;
    }
    case v1::Op::kHostAccess:
      stream_if_set();
      for (const auto& a : op.host_access().accesses()) check_access(op, a);
      break;
    case v1::Op::WHAT_NOT_SET: report(op_prefix(op) + "has no kind (kernel, memcpy, ...)"); break;
  }
}

void Validator::check(const v1::Chunk& chunk, uint64_t offset) {
  offset_ = offset;
  check_entities(chunk);
  for (const auto& op : chunk.ops()) check_op(op);
  ++chunks_;
}

namespace {

void finish(ValidationReport& report, const Validator& validator, const TraceSource& source) {
  report.errors = validator.errors();
  for (auto& e : report.errors) {
    e.file = source.path();
    if (source.encoding() != Encoding::kBinary) e.offset.reset();  // text has no chunk offsets
  }
  report.error_count = validator.error_count();
  report.ops = validator.ops_seen();
}

}  // namespace

ValidationReport validate_file(const std::string& path, size_t max_errors) {
  ValidationReport report;
  auto source = TraceSource::open_unchecked(path);
  if (!source) {
    report.errors.push_back(source.error());
    report.error_count = 1;
    return report;
  }
  Validator validator(max_errors);
  for (;;) {
    const uint64_t at = source->position();
    auto more = source->read();
    if (!more) {
      finish(report, validator, *source);
      report.errors.push_back(more.error());
      ++report.error_count;
      return report;
    }
    if (!*more) break;
    const v1::Chunk& chunk = **more;
    validator.check(chunk, at);
    ++report.chunks;
  }
  finish(report, validator, *source);
  return report;
}

}  // namespace racetrack
