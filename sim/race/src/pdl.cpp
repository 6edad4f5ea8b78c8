#include "racetrack/race/pdl.h"

#include <algorithm>

namespace racetrack::race {

namespace {

hb::PdlWait wait_of(bool waits, bool accesses_before) {
  if (!waits) return hb::PdlWait::kNone;
  return accesses_before ? hb::PdlWait::kAccessesBefore : hb::PdlWait::kWaits;
}

}  // namespace

void PdlWaitFacts::add_modules(const v1::Chunk& chunk, const TraceTables& tables) {
  if (table_) return;  // the table reads stored analyses itself
  for (const v1::Module& m : chunk.modules())
    for (const v1::FunctionCode& f : m.functions())
      if (f.analyzer_version() == code::kAnalyzerVersion)
        stored_.try_emplace({m.id(), std::string(tables.string(f.name()))},
                            wait_of(f.grid_dependency_wait(), f.accesses_before_wait()));
}

hb::PdlWait PdlWaitFacts::find(const v1::Kernel& k, const TraceTables& tables) const {
  if (!k.module()) return hb::PdlWait::kUnknown;
  const std::string_view name = tables.string(k.name());
  if (table_) {
    const code::KernelModes* code = table_->find(k.module(), name);
    return code ? wait_of(code->grid_dependency_wait, code->accesses_before_wait) : hb::PdlWait::kUnknown;
  }
  auto it = stored_.find({k.module(), std::string(name)});
  return it == stored_.end() ? hb::PdlWait::kUnknown : it->second;
}

hb::PdlWaitLookup PdlWaitFacts::lookup(const TraceTables& tables) const {
  return [this, &tables](const v1::Kernel& k) { return find(k, tables); };
}

void PdlWaitReader::add_chunk(const v1::Chunk& chunk, const TraceTables& tables) {
  if (table_) table_->add_modules(chunk, tables);
  facts_.add_modules(chunk, tables);
}

std::string pdl_explanation(const Hazard& h, const TraceTables& tables) {
  const std::string second =
      "#" + std::to_string(h.second.seq) + " on " + tables.stream_label(h.second.stream);
  const std::string first = "#" + std::to_string(h.first.seq);
  const std::string launched = second + " was launched with programmatic stream serialization after " + first;
  switch (h.pdl_wait) {
    case hb::PdlWait::kNone: return launched + ", and its code has no grid-dependency wait (machine code)";
    case hb::PdlWait::kAccessesBefore:
      return launched + ", and its code may access memory before its grid-dependency wait (machine code)";
    case hb::PdlWait::kWaits:
      return launched + ": its grid-dependency wait orders it after the kernel right before it only, which " +
             "itself may overlap " + first;
    case hb::PdlWait::kUnknown: break;
  }
  return launched + ", and without its machine code racetrack cannot tell whether it waits for its grid " +
         "dependencies";
}

std::string pdl_fix_text(const Hazard& h) {
  const std::string first = "#" + std::to_string(h.first.seq), second = "#" + std::to_string(h.second.seq);
  if (h.pdl_wait == hb::PdlWait::kWaits)
    return "add cudaGridDependencySynchronize() (griddepcontrol.wait) before the first access of the kernel "
           "between " +
           first + " and " + second + ", or launch " + second + " without the PDL attribute";
  return "add cudaGridDependencySynchronize() (griddepcontrol.wait) before the first read of " + second +
         ", or launch it without the PDL attribute (cudaLaunchAttributeProgrammaticStreamSerialization)";
}

std::string pdl_settle_text(const Hazard& h, const TraceTables& tables) {
  return "whether " + std::string(tables.string(h.second.name)) + " (#" + std::to_string(h.second.seq) +
         ") waits for its grid dependencies is in its machine code: capture with the module images (without "
         "--no-code) and check where nvdisasm is found, so check can read it";
}

Confidence programmatic_confidence(const hb::ProgrammaticWait& w, const HazardSide& second, Confidence c) {
  // Most kernels that follow a programmatic wait do wait for their grid
  // dependencies: without the code, as rule 1a, the hazard is possible.
  if (second.stream && w.dependent_kernel && w.dependent_wait == hb::PdlWait::kUnknown)
    return Confidence::kPossible;
  // A trigger at each block's start may fire with the whole kernel still to
  // run. Otherwise the kernel may trigger early (racetrack does not read
  // where), or only at block exit, before its writes are promised visible.
  if (w.at_block_start) return c;
  return std::min(c, Confidence::kLikely);
}

std::string programmatic_explanation(const Hazard& h, const TraceTables& tables) {
  const hb::ProgrammaticWait& w = h.programmatic;
  const std::string kernel = "#" + std::to_string(h.first.seq);
  const std::string where = h.second.stream ? tables.stream_label(h.second.stream)
                                            : "host thread " + std::to_string(h.second.thread);
  std::string out = "#" + std::to_string(h.second.seq) + " on " + where + " waited for " + kernel +
                    " only through " + tables.event_label(w.event) + " (at #" + std::to_string(w.wait_seq) +
                    "), " + kernel + "'s programmatic event, which triggers " +
                    (w.at_block_start ? "as each block of " + kernel + " starts"
                                      : "once every block of " + kernel + " has triggered or exited") +
                    ", not when " + kernel + " completes";
  if (!w.dependent_kernel || !h.second.stream)
    return out + ": only a dependent kernel's grid-dependency wait orders after " + kernel;
  const std::string dependent = "#" + std::to_string(w.dependent_seq);
  switch (w.dependent_wait) {
    case hb::PdlWait::kNone:
      return out + "; the dependent kernel " + dependent + " has no grid-dependency wait (machine code)";
    case hb::PdlWait::kAccessesBefore:
      return out + "; the dependent kernel " + dependent +
             " may access memory before its grid-dependency wait (machine code)";
    case hb::PdlWait::kWaits: break;
    case hb::PdlWait::kUnknown:
      return out + "; without the machine code of the dependent kernel " + dependent +
             " racetrack cannot tell whether it waits for its grid dependencies";
  }
  return out;
}

std::string programmatic_fix_text(const Hazard& h, const TraceTables& tables) {
  const hb::ProgrammaticWait& w = h.programmatic;
  const std::string kernel = "#" + std::to_string(h.first.seq);
  std::string out = "record an ordinary event after " + kernel + " (cudaEventRecord on " +
                    tables.stream_label(h.first.stream) + ") and " +
                    (h.second.stream ? "wait on it" : "synchronise on it") + " instead of " +
                    tables.event_label(w.event);
  if (h.second.stream && w.dependent_kernel)
    out += ", or add cudaGridDependencySynchronize() (griddepcontrol.wait) before the first access of #" +
           std::to_string(w.dependent_seq);
  return out;
}

}  // namespace racetrack::race
