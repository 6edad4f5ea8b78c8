#include "pair_gaps.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "racetrack/des/engine.h"
#include "racetrack/hb/happens_before.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::replay {
namespace {

// The part of an op that --stress holds or waits for, as timed somewhere.
struct Span {
  int64_t start = 0, end = 0;
};

// The traced span of an op's held part, when the trace timed it: device
// ops by their device times, host-only ops by their call.
std::optional<Span> traced_span(const v1::Op& op) {
  if (hb::is_device_op(op)) {
    if (!op.has_device_start() || !op.has_device_end() || op.device_end() <= op.device_start()) return {};
    return Span{op.device_start(), op.device_end()};
  }
  if (op.host_end() <= op.host_start()) return {};
  return Span{op.host_start(), op.host_end()};
}

Span modelled_span(const des::Program& p, const des::OpTimes& t, uint32_t op) {
  return p.ops[op].device ? Span{t.device_start, t.device_end} : Span{t.host_start, t.host_end};
}

int64_t gap_between(const Span& first, const Span& second, double scale) {
  const int64_t ns = des::span_ns(first.start, second.end);
  return ns <= 0 ? 0 : des::duration_ns(static_cast<double>(ns) * scale);
}

// The traced spans of the ops named, read in one pass over the trace
// (already validated by the loader).
Result<std::unordered_map<uint64_t, Span>> traced_spans(const std::string& path,
                                                        const std::vector<race::Hazard>& hazards) {
  std::unordered_set<uint64_t> wanted;
  for (const race::Hazard& h : hazards) wanted.insert({h.first.seq, h.second.seq});
  auto source = TraceSource::open_unchecked(path);
  if (!source) return source.error();
  std::unordered_map<uint64_t, Span> out;
  for (;;) {
    auto chunk = source->read();
    if (!chunk) return chunk.error();
    if (!*chunk) break;
    for (const v1::Op& op : (*chunk)->ops())
      if (wanted.count(op.seq()))
        if (const auto span = traced_span(op)) out[op.seq()] = *span;
  }
  return out;
}

}  // namespace

Result<std::vector<PairGap>> pair_gaps(const std::string& path, const des::Program& program,
                                       const std::vector<race::Hazard>& hazards, bool traced_timing,
                                       double time_scale) {
  std::vector<PairGap> gaps(hazards.size());
  std::unordered_map<uint64_t, Span> traced;
  if (traced_timing && !hazards.empty()) {
    auto spans = traced_spans(path, hazards);
    if (!spans) return spans.error();
    traced = std::move(*spans);
  }
  std::optional<des::RunResult> model;  // run once, when a pair needs it
  for (size_t k = 0; k < hazards.size(); ++k) {
    const auto a = traced.find(hazards[k].first.seq), b = traced.find(hazards[k].second.seq);
    if (a != traced.end() && b != traced.end()) {
      gaps[k] = {gap_between(a->second, b->second, time_scale), GapSource::kTraced};
      continue;
    }
    if (!model) {
      // A program the model cannot run to the end (it reports a deadlock)
      // leaves the modelled gaps at 0: the holds get the margin alone.
      auto run = des::run(program, des::Schedule{});
      model = run ? std::move(*run) : des::RunResult{};
    }
    if (model->times.empty()) {
      gaps[k] = {0, GapSource::kModelled};
      continue;
    }
    const uint32_t first = static_cast<uint32_t>(program.index_of(hazards[k].first.seq)),
                   second = static_cast<uint32_t>(program.index_of(hazards[k].second.seq));
    gaps[k] = {gap_between(modelled_span(program, model->times[first], first),
                           modelled_span(program, model->times[second], second), 1.0),
               GapSource::kModelled};
  }
  return gaps;
}

}  // namespace racetrack::replay
