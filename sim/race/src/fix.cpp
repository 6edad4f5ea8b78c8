#include "racetrack/race/fix.h"

#include <algorithm>
#include <optional>

#include "racetrack/race/checker.h"
#include "racetrack/race/external_agents.h"
#include "racetrack/race/graph_lifetime_text.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::race {
namespace {

std::string op_ref(const HazardSide& side, const TraceTables& tables) {
  std::string title;
  if (side.op_kind == OpKind::kMemcpy)
    title = "memcpy " + std::string(direction_name(side.direction));
  else if (side.name)
    title = std::string(op_kind_name(side.op_kind)) + " " + std::string(tables.string(side.name));
  else
    title = std::string(op_kind_name(side.op_kind));
  if (title.size() > 60) title = title.substr(0, 57) + "...";
  return "#" + std::to_string(side.seq) + " (" + title + ")";
}

std::string label_of(const HazardSide& side, const TraceTables& tables) {
  return side.region_label ? std::string(tables.string(side.region_label)) : std::string("the buffer");
}

bool is_pinned_copy_write(const HazardSide& s) {
  return s.op_kind == OpKind::kMemcpy && s.access.writes && s.access.space == kHostSpace;
}

bool is_pinned_copy_read(const HazardSide& s) {
  return s.op_kind == OpKind::kMemcpy && !s.access.writes && s.access.space == kHostSpace;
}

size_t count_below(const std::vector<uint64_t>& sorted, uint64_t v) {
  return static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), v) - sorted.begin());
}

size_t count_at_most(const std::vector<uint64_t>& sorted, uint64_t v) {
  return static_cast<size_t>(std::upper_bound(sorted.begin(), sorted.end(), v) - sorted.begin());
}

}  // namespace

Fix suggest_fix(const Hazard& h, const TraceTables& tables) {
  Fix f;
  const HazardSide& a = h.first;
  const HazardSide& b = h.second;
  if (b.graph_lifetime != GraphLifetime::kNone) return graph_lifetime_fix(h, tables);
  if (a.external_agent) return external_fix(h, tables);
  if (a.seq == b.seq) {
    f.text = "nodes " + std::to_string(a.access.node - 1) + " and " + std::to_string(b.access.node - 1) + " of graph launch #" +
             std::to_string(a.seq) + " are unordered: add a dependency edge between them when the graph is built";
    return f;
  }
  if (a.stream == 0) {
    f.text = "order " + op_ref(b, tables) + " after " + op_ref(a, tables) +
             " on the host (join or signal between the two threads): no CUDA synchronisation orders two host threads";
    return f;
  }
  f.available = true;
  f.edit = FixEdit{a.seq, a.stream, a.thread, b.seq, b.stream, b.thread, h.event_after_first};
  const std::string s1 = tables.stream_label(a.stream);
  const std::string s2 = b.stream ? tables.stream_label(b.stream) : std::string();
  // The program's own event when it already records one right after the
  // first op: waiting on it costs nothing new.
  const std::string existing = h.event_after_first ? tables.event_label(h.event_after_first) : std::string();
  const std::string event = existing.empty() ? "it" : existing;
  const std::string wait_clause = b.stream
                                      ? "make " + s2 + " wait on " + event + " before " + op_ref(b, tables)
                                      : "synchronise the host with " + event + " before " + op_ref(b, tables);
  const std::string generic =
      existing.empty() ? "record an event on " + s1 + " after " + op_ref(a, tables) + " and " + wait_clause
                       : wait_clause + ": " + s1 + " already records it right after " + op_ref(a, tables);
  auto event_or = [&](const std::string& name) { return existing.empty() ? name : existing; };

  if (h.cls == HazardClass::kReuse) {
    f.text = op_ref(a, tables) + " on " + s1 + " still uses " + label_of(a, tables) + " when its memory is reused for " +
             label_of(b, tables) + ": free it only after " + s1 + " is done with it (the caching allocator defers reuse "
             "after record_stream), or " + generic;
    f.pytorch = label_of(a, tables) + ".record_stream(" + s1 + ")  # before the tensor is freed";
  } else if (!b.stream) {
    f.text = generic;
    f.pytorch = existing.empty() ? "event.synchronize()  # event recorded on " + s1 +
                                       " after the copy, before the host reads"
                                 : existing + ".synchronize()  # before the host reads";
  } else if (is_pinned_copy_write(a) && is_pinned_copy_read(b)) {
    f.text = "the reload reads pinned memory the offload may still be writing: " + generic;
    f.pytorch = s2 + ".wait_event(" + event_or("offload_event") + ")  # before the reload (or " + s2 +
                ".wait_stream(" + s1 + "))";
  } else if (is_pinned_copy_read(a) && is_pinned_copy_write(b)) {
    f.text = "the pinned buffer is refilled while " + op_ref(a, tables) + " may still read it: " + generic +
             " (or return the buffer to its pool only after that event)";
    f.pytorch = s2 + ".wait_event(" + event_or("reload_event") + ")  # before reusing the pinned buffer";
  } else {
    f.text = generic;
    f.pytorch = existing.empty() ? s2 + ".wait_event(ev)  # ev = torch.cuda.Event(); ev.record(" + s1 +
                                       ") after the first op"
                                 : s2 + ".wait_event(" + existing + ")";
  }
  return f;
}

std::vector<FixEdit> merge_edits(std::vector<FixEdit> edits) {
  std::sort(edits.begin(), edits.end());
  std::vector<FixEdit> out;
  for (const FixEdit& e : edits) {
    // Sorted by (after, record stream, record thread, before, ...): an edit
    // that repeats an earlier one's record point and waiter is implied by it.
    const bool implied = std::any_of(out.begin(), out.end(), [&](const FixEdit& o) {
      if (o.recapture || e.recapture) return o.recapture == e.recapture && o.before_seq == e.before_seq;
      return o.after_seq == e.after_seq && o.record_stream == e.record_stream && o.wait_stream == e.wait_stream &&
             o.thread == e.thread && o.before_seq <= e.before_seq;
    });
    if (!implied) out.push_back(e);
  }
  return out;
}

FixRewriter::FixRewriter(std::vector<FixEdit> edits) : edits_(std::move(edits)) {
  for (const FixEdit& e : edits_) {
    if (e.recapture) {
      // A capture begin and end before the launch, and no event.
      new_event_.push_back(0);
      waits_before_.insert(waits_before_.end(), 2, e.before_seq);
      continue;
    }
    new_event_.push_back(e.existing_event ? 0 : ++new_events_);
    if (!e.existing_event) records_after_.push_back(e.after_seq);
    waits_before_.push_back(e.before_seq);
  }
  std::sort(records_after_.begin(), records_after_.end());
  std::sort(waits_before_.begin(), waits_before_.end());
}

uint64_t FixRewriter::new_seq(uint64_t old_seq) const {
  if (old_seq == 0) return 0;
  return old_seq + count_below(records_after_, old_seq) + count_at_most(waits_before_, old_seq);
}

uint64_t FixRewriter::original_seq(uint64_t seq) const { return seq - count_below(inserted_, seq); }

uint32_t FixRewriter::new_event(uint32_t old_event) const {
  if (old_event <= first_chunk_events_) return old_event;
  return old_event + new_events_;
}

uint32_t FixRewriter::waited_event(size_t i) const {
  return new_event_[i] ? first_chunk_events_ + new_event_[i] : new_event(edits_[i].existing_event);
}

void FixRewriter::remap_events(v1::Op& op) const {
  switch (op.what_case()) {
    case v1::Op::kRecord: op.mutable_record()->set_event(new_event(op.record().event())); break;
    case v1::Op::kWait: op.mutable_wait()->set_event(new_event(op.wait().event())); break;
    case v1::Op::kSync: op.mutable_sync()->set_event(new_event(op.sync().event())); break;
    case v1::Op::kQuery: op.mutable_query()->set_event(new_event(op.query().event())); break;
    case v1::Op::kKernel:
      if (op.kernel().programmatic_event())
        op.mutable_kernel()->set_programmatic_event(new_event(op.kernel().programmatic_event()));
      break;
    default: break;
  }
}

const v1::Chunk& FixRewriter::rewrite(const v1::Chunk& in) {
  out_.Clear();
  if (in.has_header()) *out_.mutable_header() = in.header();
  *out_.mutable_strings() = in.strings();
  *out_.mutable_streams() = in.streams();
  *out_.mutable_threads() = in.threads();
  *out_.mutable_modules() = in.modules();
  *out_.mutable_values() = in.values();  // values records are not ops: no seqs move
  for (const auto& r : in.regions()) {
    v1::Region& copy = *out_.add_regions();
    copy = r;
    copy.set_alloc_seq(new_seq(r.alloc_seq()));
    copy.set_free_seq(new_seq(r.free_seq()));
  }
  for (const auto& e : in.events()) {
    v1::Event& copy = *out_.add_events();
    copy = e;
    copy.set_id(first_chunk_ ? e.id() : new_event(e.id()));
  }
  if (first_chunk_) {
    first_chunk_events_ = static_cast<uint32_t>(in.events_size());
    for (uint32_t i = 1; i <= new_events_; ++i) out_.add_events()->set_id(first_chunk_events_ + i);
    first_chunk_ = false;
  }

  for (const v1::Op& op : in.ops()) {
    // The waits before this op take the seqs just below its new seq.
    const uint64_t waits = count_at_most(waits_before_, op.seq()) - count_below(waits_before_, op.seq());
    uint64_t wait_seq = new_seq(op.seq()) - waits;
    uint64_t recaptured_at = 0;
    for (size_t i = 0; i < edits_.size(); ++i) {
      const FixEdit& e = edits_[i];
      if (e.before_seq != op.seq()) continue;
      if (e.recapture) {
        for (v1::CapturePhase phase : {v1::CAPTURE_BEGIN, v1::CAPTURE_END}) {
          v1::Op& capture = *out_.add_ops();
          capture.set_seq(wait_seq++);
          capture.set_thread(e.thread);
          capture.set_stream(e.wait_stream);
          capture.set_host_start(op.host_start());
          capture.set_host_end(op.host_start());
          capture.mutable_capture()->set_phase(phase);
          if (phase == v1::CAPTURE_END && op.has_graph())
            capture.mutable_capture()->set_graph_id(op.graph().graph_id());
          recaptured_at = capture.seq();
          inserted_.push_back(capture.seq());
        }
        continue;
      }
      v1::Op& wait = *out_.add_ops();
      wait.set_seq(wait_seq++);
      wait.set_host_start(op.host_start());
      wait.set_host_end(op.host_start());
      set_fix_wait(wait, e, waited_event(i));
      inserted_.push_back(wait.seq());
    }
    v1::Op& copy = *out_.add_ops();
    copy = op;
    copy.set_seq(new_seq(op.seq()));
    remap_events(copy);
    if (copy.has_annotation() && copy.annotation().ordered_after_seq())
      copy.mutable_annotation()->set_ordered_after_seq(new_seq(copy.annotation().ordered_after_seq()));
    if (copy.has_graph() && copy.graph().captured_seq())
      copy.mutable_graph()->set_captured_seq(recaptured_at ? recaptured_at
                                                           : new_seq(copy.graph().captured_seq()));
    uint64_t next = copy.seq();
    for (size_t i = 0; i < edits_.size(); ++i) {
      const FixEdit& e = edits_[i];
      if (e.after_seq != op.seq() || e.existing_event || e.recapture) continue;
      v1::Op& record = *out_.add_ops();
      record.set_seq(++next);
      record.set_thread(e.record_thread);
      record.set_stream(e.record_stream);
      record.set_host_start(op.host_end());
      record.set_host_end(op.host_end());
      record.mutable_record()->set_event(waited_event(i));
      inserted_.push_back(record.seq());
    }
  }
  std::sort(inserted_.begin(), inserted_.end());
  return out_;
}

void set_fix_wait(v1::Op& op, const FixEdit& e, uint32_t event) {
  op.set_thread(e.thread);
  if (e.wait_stream) {
    op.set_stream(e.wait_stream);
    op.mutable_wait()->set_event(event);
  } else {
    op.mutable_sync()->set_kind(v1::SYNC_EVENT);
    op.mutable_sync()->set_event(event);
  }
}

std::vector<FixEdit> fix_edits(const CheckResult& result) {
  std::vector<FixEdit> edits;
  for (const Hazard& h : result.shown) {
    const Fix f = suggest_fix(h, *result.tables);
    if (f.available) edits.push_back(f.edit);
  }
  return merge_edits(std::move(edits));
}

Status write_fixed_trace(const std::string& in_path, const std::string& out_path, std::vector<FixEdit> edits) {
  FixRewriter rewriter(std::move(edits));
  return transform_trace(in_path, out_path, [&](const v1::Chunk& chunk) -> const v1::Chunk& {
    return rewriter.rewrite(chunk);
  });
}

}  // namespace racetrack::race
