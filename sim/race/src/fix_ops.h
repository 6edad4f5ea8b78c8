// Fix edits as ops to insert around the trace's own ops when fixes are
// verified (docs/check.md, "Verifying fixes"). Inserted ops keep the seq of
// the op they stand next to (the checker does not need seqs strictly
// increasing), so hazards keep their original ops' names.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "racetrack/race/fix.h"

namespace racetrack::race {

class FixOps {
 public:
  // Adds an edit; its ops go around the trace's ops that come after this.
  void add(const FixEdit& e);
  const std::vector<v1::Op>* before(uint64_t seq) const { return find(before_, seq); }
  const std::vector<v1::Op>* after(uint64_t seq) const { return find(after_, seq); }
  // Drops the ops around the trace's ops up to `seq`, which are done.
  void passed(uint64_t seq) {
    for (Map* m : {&before_, &after_})
      while (!m->empty() && m->begin()->first <= seq) m->erase(m->begin());
  }
  // The op as re-checked: a re-captured launch names the capture inserted
  // right before it (which has its seq).
  const v1::Op& patched(const v1::Op& op);

 private:
  // Ordered, and emptied as the trace passes: the next edit is the first.
  using Map = std::map<uint64_t, std::vector<v1::Op>>;
  static const std::vector<v1::Op>* find(const Map& m, uint64_t seq) {
    if (m.empty() || m.begin()->first != seq) return nullptr;
    return &m.begin()->second;
  }
  Map before_, after_;
  std::set<uint64_t> recaptured_;
  v1::Op patched_;
  // New events count down from the top of the id space: a validated trace's
  // events are numbered from 1, and later chunks may still define more.
  uint32_t next_event_ = UINT32_MAX;
};

}  // namespace racetrack::race
