// Programmatic dependent launch in the checker (docs/ordering-rules.md rule
// 1a): the happens-before rule asks whether a kernel's machine code waits
// for its grid dependencies; this answers from the code-mode table, or,
// without one, from the analysis the trace stores (Module.functions). And
// how a hazard between a PDL secondary and its primary is explained and
// fixed.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "racetrack/hb/hb_graph.h"
#include "racetrack/hb/pdl.h"
#include "racetrack/race/code_modes.h"
#include "racetrack/race/hazard.h"

namespace racetrack::race {

class PdlWaitFacts {
 public:
  // `table` null: only the trace's stored analyses of the current analyzer
  // version count.
  explicit PdlWaitFacts(std::shared_ptr<const CodeModeTable> table) : table_(std::move(table)) {}

  // Reads the chunk's modules' stored analyses (without a table).
  void add_modules(const v1::Chunk& chunk, const TraceTables& tables);
  hb::PdlWait find(const v1::Kernel& k, const TraceTables& tables) const;
  // A lookup for HappensBefore; this and `tables` must outlive it.
  hb::PdlWaitLookup lookup(const TraceTables& tables) const;

 private:
  std::shared_ptr<const CodeModeTable> table_;
  std::map<std::pair<uint32_t, std::string>, hb::PdlWait> stored_;  // (module, kernel name)
};

// Rule 1a's facts for a happens-before graph read from a file (racetrack
// why, the viewer's chains), as the checker finds them: each chunk's modules
// go into the code-mode table, or without one their stored analyses count.
class PdlWaitReader : public hb::PdlWaitSource {
 public:
  explicit PdlWaitReader(std::shared_ptr<CodeModeTable> table) : table_(table), facts_(table) {}
  void add_chunk(const v1::Chunk& chunk, const TraceTables& tables) override;
  hb::PdlWait wait(const v1::Kernel& kernel, const TraceTables& tables) const override {
    return facts_.find(kernel, tables);
  }

 private:
  std::shared_ptr<CodeModeTable> table_;
  PdlWaitFacts facts_;
};

// Why the pair of a PDL hazard (Hazard::pdl) is unordered, and what to do.
std::string pdl_explanation(const Hazard& h, const TraceTables& tables);
std::string pdl_fix_text(const Hazard& h);
// What settles one whose secondary's code is unknown (a possible hazard).
std::string pdl_settle_text(const Hazard& h, const TraceTables& tables);

// A hazard whose second side waited on the first kernel's programmatic
// event (Hazard::programmatic, rule 5a): the confidence it is capped at
// (likely unless every block triggers at its start), why it is unordered,
// and what to do.
Confidence programmatic_confidence(const hb::ProgrammaticWait& w, const HazardSide& second, Confidence c);
std::string programmatic_explanation(const Hazard& h, const TraceTables& tables);
std::string programmatic_fix_text(const Hazard& h, const TraceTables& tables);

}  // namespace racetrack::race
