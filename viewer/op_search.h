// Search by name: a regular expression over what each box is called
// ("kernel void gemm<...>(...)", "memcpy D2H", "record e_off", NVTX range
// names), with next / previous in time order. Names are matched once each
// (lazily), so a search over ten million ops is a scan of small arrays.
#pragma once

#include <QRegularExpression>
#include <optional>
#include <vector>

#include "trace_model.h"

namespace racetrack::viewer {

class OpSearch {
 public:
  OpSearch(const TraceModel& model, const QString& pattern);

  bool valid() const { return pattern_.isValid() && !pattern_.pattern().isEmpty(); }
  QString error() const { return pattern_.errorString(); }
  uint64_t count();
  // The first match that starts after (time, seq) / the last before it,
  // wrapping around the trace.
  std::optional<OpRef> next(int64_t time, uint64_t seq);
  std::optional<OpRef> previous(int64_t time, uint64_t seq);

 private:
  bool matches(const Lane& lane, size_t i);

  const TraceModel& model_;
  QRegularExpression pattern_;
  // Per name id, one bit per category: known, and matching.
  std::vector<uint32_t> known_, hit_;
  std::vector<uint8_t> nvtx_known_, nvtx_hit_;
};

}  // namespace racetrack::viewer
