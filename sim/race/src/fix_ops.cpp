#include "fix_ops.h"

namespace racetrack::race {

void FixOps::add(const FixEdit& e) {
  if (e.recapture) {
    // A capture begin and end right before the launch, which names it.
    for (v1::CapturePhase phase : {v1::CAPTURE_BEGIN, v1::CAPTURE_END}) {
      v1::Op& capture = before_[e.before_seq].emplace_back();
      capture.set_seq(e.before_seq);
      capture.set_thread(e.thread);
      capture.set_stream(e.wait_stream);
      capture.mutable_capture()->set_phase(phase);
    }
    recaptured_.insert(e.before_seq);
    return;
  }
  const uint32_t event = e.existing_event ? e.existing_event : next_event_--;
  if (!e.existing_event) {
    v1::Op& record = after_[e.after_seq].emplace_back();
    record.set_seq(e.after_seq);
    record.set_thread(e.record_thread);
    record.set_stream(e.record_stream);
    record.mutable_record()->set_event(event);
  }
  v1::Op& wait = before_[e.before_seq].emplace_back();
  wait.set_seq(e.before_seq);
  set_fix_wait(wait, e, event);
}

const v1::Op& FixOps::patched(const v1::Op& op) {
  if (!op.has_graph() || !recaptured_.count(op.seq())) return op;
  patched_ = op;
  patched_.mutable_graph()->set_captured_seq(op.seq());
  return patched_;
}

}  // namespace racetrack::race
