#include "assembler_nvtx.h"

#include <algorithm>
#include <cstring>

#include "assembler_ops.h"

namespace racetrack::capture {

std::string nvtx_message(const ApiEvent& event, std::span<const uint64_t> payload) {
  const size_t available = payload.size() * sizeof(uint64_t);
  size_t length = event.payload_bytes ? std::min<size_t>(event.payload_bytes, available) : available;
  std::string text(length, '\0');
  if (length) std::memcpy(text.data(), payload.data(), length);
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

namespace {

std::string error_text(const Error& error, const std::string& message) {
  return error.message + " (in \"" + message + "\")";
}

}  // namespace

void NvtxTracker::on_event(const ApiEvent& event, std::span<const uint64_t> payload) {
  ThreadState& thread = threads_[event.os_tid];
  if (event.kind == ApiKind::kNvtxPop) {
    if (!thread.ranges.empty()) thread.ranges.pop_back();
    thread.path.reset();
    return;
  }
  const std::string text = nvtx_message(event, payload);
  if (event.kind == ApiKind::kNvtxPush) {
    push(event, text);
    return;
  }
  auto parsed = parse_annotation(text);
  if (!parsed) return write_mark(event, error_text(parsed.error(), text));
  if (!*parsed) return write_mark(event, text);
  if ((*parsed)->verb == AnnotationVerb::kOp)
    return write_mark(event,
                      "racetrack:op is a range: push and pop it, a mark has no extent (in \"" + text + "\")");
  apply(event, **parsed);
}

void NvtxTracker::push(const ApiEvent& event, const std::string& text) {
  auto parsed = parse_annotation(text);
  // Every push is a range, whatever it says, so that its pop matches.
  Range range{text.empty() ? "(unnamed)" : text, {}, false};
  if (!parsed) {
    write_mark(event, error_text(parsed.error(), text));
  } else if (*parsed && (*parsed)->verb == AnnotationVerb::kOp) {
    range.name = (*parsed)->name;
    range.accesses = std::move((*parsed)->accesses);
    range.op = true;
  } else if (*parsed) {
    apply(event, **parsed);
  }
  ThreadState& thread = threads_[event.os_tid];
  thread.ranges.push_back(std::move(range));
  thread.path.reset();
}

void NvtxTracker::apply(const ApiEvent& event, const ParsedAnnotation& annotation) {
  switch (annotation.verb) {
    case AnnotationVerb::kKernel: {
      auto& next = threads_[event.os_tid].next_launch;
      next.insert(next.end(), annotation.accesses.begin(), annotation.accesses.end());
      break;
    }
    case AnnotationVerb::kHost: {
      v1::Op& op = begin_op(event);
      auto& accesses = *op.mutable_host_access()->mutable_accesses();
      for (const AnnotatedAccess& a : annotation.accesses) *accesses.Add() = annotated_access(a, regions_);
      out_.end_op();
      break;
    }
    case AnnotationVerb::kLabel: label(event, annotation); break;
    case AnnotationVerb::kOp: break;  // ranges only
    case AnnotationVerb::kOpOutputs:
    case AnnotationVerb::kStack:
      // Read ahead by the assembler for the op's kernels; stray ones are reported.
      if (!in_op_range(event.os_tid))
        write_mark(event, "racetrack:" + std::string(annotation.verb == AnnotationVerb::kStack ? "stack" : "op-out") +
                              " outside a racetrack:op range");
      break;
    case AnnotationVerb::kBlockAlloc:
    case AnnotationVerb::kBlockFree:
      if (block_handler_) block_handler_(event, annotation);
      break;
    case AnnotationVerb::kExternal:
    case AnnotationVerb::kExternalDone: external(event, annotation); break;
  }
}

// An agent outside CUDA streams: one EXTERNAL_ACCESS op per access, or the
// EXTERNAL_DONE that observes its completion (docs/annotations.md).
void NvtxTracker::external(const ApiEvent& event, const ParsedAnnotation& annotation) {
  const uint32_t agent = out_.intern(annotation.name);
  if (annotation.verb == AnnotationVerb::kExternalDone) {
    v1::Op& op = begin_op(event);
    op.mutable_annotation()->set_kind(v1::ANNOTATE_EXTERNAL_DONE);
    op.mutable_annotation()->set_agent(agent);
    out_.end_op();
    return;
  }
  const uint32_t done = annotation.event && event_resolver_ ? event_resolver_(annotation.event) : 0;
  for (const AnnotatedAccess& access : annotation.accesses) {
    v1::Op& op = begin_op(event);
    v1::Annotation& a = *op.mutable_annotation();
    a.set_kind(v1::ANNOTATE_EXTERNAL_ACCESS);
    a.set_agent(agent);
    a.set_done_event(done);
    *a.mutable_access() = annotated_access(access, regions_);
    out_.end_op();
  }
}

// A label names the region that is exactly its range (in place while that
// region is unwritten, else with an ANNOTATE_LABEL_REGION op); any other range
// becomes an annotation region of its own, so a tensor inside a segment is
// named without renaming the segment. An address no region holds is host
// memory the capturer never saw allocated (device and pinned memory come
// from calls it sees): pageable host.
void NvtxTracker::label(const ApiEvent& event, const ParsedAnnotation& annotation) {
  const AnnotatedAccess& range = annotation.accesses.front();
  const uint32_t name = out_.intern(annotation.name);
  if (const LiveRegion* same = regions_.exactly(range.address, range.bytes)) {
    if (regions_.label_if_pending(*same, name)) return;
    v1::Op& op = begin_op(event);
    v1::Annotation& a = *op.mutable_annotation();
    a.set_kind(v1::ANNOTATE_LABEL_REGION);
    a.set_text(name);
    a.set_region(same->id);
    out_.end_op();
    return;
  }
  const LiveRegion* outer = regions_.containing(range.address, range.bytes);
  regions_.add(outer ? outer->space : v1::SPACE_PAGEABLE_HOST, range.address, range.bytes,
               outer ? outer->device : 0, v1::ORIGIN_ANNOTATION, /*alloc_seq=*/0, name);
}

v1::Op& NvtxTracker::begin_op(const ApiEvent& event) {
  v1::Op& op = out_.begin_op(event.os_tid, event.host_start, event.host_end);
  op.set_nvtx(path(event.os_tid));
  return op;
}

void NvtxTracker::write_mark(const ApiEvent& event, const std::string& text) {
  v1::Op& op = begin_op(event);
  op.mutable_annotation()->set_kind(v1::ANNOTATE_MARK);
  op.mutable_annotation()->set_text(out_.intern(text.empty() ? "(empty mark)" : text));
  out_.end_op();
}

uint32_t NvtxTracker::path(uint64_t os_tid) {
  auto it = threads_.find(os_tid);
  if (it == threads_.end()) return 0;
  ThreadState& thread = it->second;
  if (!thread.path) {
    std::string joined;
    for (const Range& r : thread.ranges) joined += (joined.empty() ? "" : "/") + r.name;
    thread.path = out_.intern(joined);
  }
  return *thread.path;
}

bool NvtxTracker::in_op_range(uint64_t os_tid) const {
  auto it = threads_.find(os_tid);
  return it != threads_.end() && !it->second.ranges.empty() && it->second.ranges.back().op;
}

std::vector<AnnotatedAccess> NvtxTracker::take_launch_accesses(uint64_t os_tid) {
  auto it = threads_.find(os_tid);
  if (it == threads_.end()) return {};
  std::vector<AnnotatedAccess> out = std::move(it->second.next_launch);
  it->second.next_launch.clear();
  for (const Range& r : it->second.ranges) out.insert(out.end(), r.accesses.begin(), r.accesses.end());
  return out;
}

}  // namespace racetrack::capture
