// Verifies the fixes of the hazards check shows (docs/check.md, "Verifying
// fixes"). A second checker, without shadow memory, runs the trace with every
// fix inserted and tells, for each shown hazard, whether its second op is then
// ordered after its first (or, for a hazard order does not make, whether it
// is found again); it also gathers what the explanations need.
// It can run a chunk behind the check, learning each hazard as the check finds
// it: a hazard must arrive before the verifier has passed the ops its fix and
// explanation need, or the verifier gives up and check verifies in a pass of
// its own.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "fix_ops.h"
#include "racetrack/race/checker.h"
#include "tick_map.h"
#include "wrong_wait.h"

namespace racetrack::race {

class FixVerifier : private OrderObserver {
 public:
  explicit FixVerifier(const CheckOptions& options);

  // A shown hazard: its fix joins the trace and its pair is watched.
  void want_fix(const Hazard& h, const Fix& fix);
  // A hazard to explain (its group's first): the points its text names.
  void want_explanation(const Hazard& h);
  // The trace's chunks, in order.
  void add_chunk(const v1::Chunk& chunk);
  // After the last chunk.
  void finish();

  // A hazard came after the ops it needs were applied.
  bool gave_up() const { return gave_up_; }
  std::optional<std::string> bad_input() const { return recheck_.bad_input(); }

  // After finish(): whether the hazard's pair is still unordered (or found
  // again) with every fix applied.
  bool unordered(const HazardKey& key) const { return unordered_.count(key) > 0; }
  size_t unordered_count() const { return unordered_.size(); }
  const TickMap& ticks() const { return ticks_; }
  const WrongWaits& waits() const { return waits_; }

 private:
  struct AccessKey {
    uint32_t index = 0, node = 0;
  };
  struct Pair {
    HazardKey key;
    AccessKey first, second;
    // The first side is an external agent's completion, at the op that
    // observed it (no staged read).
    bool first_is_completion = false;
    hb::Epoch first_epoch{};
    bool first_applied = false;
  };
  void on_order(const v1::Op& op, const hb::OpOrder& order) override;
  void on_report(const HazardSide& first, const HazardSide& second) override;
  void insert(const std::vector<v1::Op>* ops);
  // Whether the ops up to `seq` are still to be applied.
  bool ahead(uint64_t seq) const { return !applied_any_ || seq > applied_seq_; }

  Checker recheck_;
  FixOps fix_ops_;
  TickMap ticks_;
  WrongWaits waits_;
  std::vector<Pair> pairs_;
  // Op seq -> pairs, emptied as the trace passes: the next one is the first.
  std::map<uint64_t, std::vector<uint32_t>> by_first_, by_second_;
  std::set<HazardKey> found_again_;  // hazards order does not make: the ones to find again
  std::set<HazardKey> unordered_;
  uint64_t applied_seq_ = 0;
  bool applied_any_ = false;
  bool inserting_ = false;  // fix ops are not the trace's
  bool gave_up_ = false;
};

}  // namespace racetrack::race
