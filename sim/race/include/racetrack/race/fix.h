// Fixes: the cheapest single synchronisation that orders a hazard's pair
// (an event recorded right after the first op, or one the program already
// records there, waited on right before the second), its wording for
// engineers, and a trace rewriter that inserts fixes so they can be
// re-checked (`check --emit-fixed`).
#pragma once

#include <compare>
#include <string>
#include <vector>

#include "racetrack/race/hazard.h"
#include "racetrack/traces/tables.h"

namespace racetrack::race {

// Record a new event on `record_stream` right after op `after_seq`; then, on
// `thread`, right before op `before_seq`, make `wait_stream` wait on it
// (cudaStreamWaitEvent) or, when `wait_stream` is 0, synchronise the host
// with it (cudaEventSynchronize). With `existing_event`, the trace already
// records that event right after `after_seq`: nothing is recorded and the
// wait is on it.
struct FixEdit {
  uint64_t after_seq = 0;
  uint32_t record_stream = 0;
  uint32_t record_thread = 0;
  uint64_t before_seq = 0;
  uint32_t wait_stream = 0;
  uint32_t thread = 0;
  uint32_t existing_event = 0;
  // Instead: re-capture the graph launched at `before_seq` right before it
  // (a capture begin and end on `wait_stream`, which the launch then names
  // as its capture): its addresses are those of the regions live then.
  bool recapture = false;
  auto operator<=>(const FixEdit&) const = default;
};

struct Fix {
  bool available = false;  // false: no CUDA synchronisation can order the pair
  FixEdit edit;
  std::string text;     // what to do, in words
  std::string pytorch;  // the same in PyTorch, when it applies
  bool verified = false;
};

Fix suggest_fix(const Hazard& h, const TraceTables& tables);

// Makes `op` an edit's wait on `event`: its wait stream's wait, or with none
// its thread's host synchronisation (seq and times are the caller's).
void set_fix_wait(v1::Op& op, const FixEdit& e, uint32_t event);

// Drops edits made redundant by another edit from the same record point to
// the same stream or thread at an earlier op.
std::vector<FixEdit> merge_edits(std::vector<FixEdit> edits);

// Rewrites a trace chunk by chunk with edits applied: new events (defined in
// the first chunk; later event ids shift), the record/wait/sync ops, and
// seqs renumbered so they stay strictly increasing. Edits on an existing
// event add only the wait.
class FixRewriter {
 public:
  explicit FixRewriter(std::vector<FixEdit> edits);

  const v1::Chunk& rewrite(const v1::Chunk& original);
  // The original seq of a rewritten op (inserted ops map to the op before).
  uint64_t original_seq(uint64_t new_seq) const;

 private:
  uint64_t new_seq(uint64_t old_seq) const;
  uint32_t new_event(uint32_t old_event) const;
  void remap_events(v1::Op& op) const;

  // The event edit `i` waits on, as written: its existing event remapped,
  // or the new one defined for it.
  uint32_t waited_event(size_t i) const;

  std::vector<FixEdit> edits_;
  std::vector<uint32_t> new_event_;  // per edit: 1-based index among new events, 0 for existing ones
  uint32_t new_events_ = 0;
  std::vector<uint64_t> records_after_;  // sorted after_seq of each edit that records
  std::vector<uint64_t> waits_before_;   // sorted before_seq of each edit
  std::vector<uint64_t> inserted_;       // new seqs of inserted ops, sorted
  v1::Chunk out_;
  bool first_chunk_ = true;
  uint32_t first_chunk_events_ = 0;
  uint32_t events_seen_ = 0;
};

// The edits that fix every shown hazard of a check.
struct CheckResult;
std::vector<FixEdit> fix_edits(const CheckResult& result);

// Writes `in_path` with `edits` applied to `out_path` (any encoding).
Status write_fixed_trace(const std::string& in_path, const std::string& out_path, std::vector<FixEdit> edits);

}  // namespace racetrack::race
