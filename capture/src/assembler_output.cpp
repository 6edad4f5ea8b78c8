#include "assembler_output.h"

#include <algorithm>

namespace racetrack::capture {

TraceOutput::TraceOutput(TraceWriter& writer, v1::Header header)
    : writer_(writer), header_(std::move(header)) {
  header_.set_format_version(kFormatVersion);
  header_.set_clock_domain(v1::CLOCK_DOMAIN_REALTIME);
}

void TraceOutput::set_origin(int64_t absolute_ns) {
  if (origin_) return;
  origin_ = absolute_ns;
  header_.set_time_origin_ns(absolute_ns);
}

void TraceOutput::place_header() {
  if (header_placed_ || !origin_) return;
  *pending().mutable_header() = header_;
  header_placed_ = true;
}

uint32_t TraceOutput::intern(std::string_view text) {
  if (text.empty()) return 0;
  auto [it, added] = interned_.try_emplace(std::string(text), strings_ + 1);
  if (added) {
    ++strings_;
    pending().add_strings(std::string(text));
  }
  return it->second;
}

uint32_t TraceOutput::thread(uint64_t os_tid) {
  auto [it, added] = threads_.try_emplace(os_tid, static_cast<uint32_t>(threads_.size() + 1));
  if (added) {
    v1::HostThread& t = *pending().add_threads();
    t.set_id(it->second);
    t.set_os_tid(os_tid);
    t.set_name(intern("thread " + std::to_string(os_tid)));
  }
  return it->second;
}

v1::Op& TraceOutput::begin_op(uint64_t os_tid, int64_t host_start, int64_t host_end) {
  set_origin(host_start);
  place_header();
  const uint32_t thread_id = thread(os_tid);
  last_os_tid_ = os_tid;
  v1::Op& op = *pending().add_ops();
  op.set_seq(next_seq_++);
  op.set_thread(thread_id);
  op.set_host_start(relative(host_start));
  // A call whose EXIT was never seen has no end: give it none of its own.
  op.set_host_end(relative(std::max(host_start, host_end)));
  return op;
}

void TraceOutput::end_op() {
  auto status = writer_.commit_if_full();
  if (!status && status_) status_ = status;
}

Status TraceOutput::flush() {
  place_header();
  if (header_placed_) {
    auto status = writer_.flush();
    if (!status && status_) status_ = status;
  }
  return status_;
}

}  // namespace racetrack::capture
