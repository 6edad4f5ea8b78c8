#include "racetrack/diverge/divergence_report.h"

#include <cstdio>

namespace racetrack::diverge {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string identity(const ValueRecord& r) {
  std::string out = r.phase + " " + (r.module.empty() ? "(no module)" : r.module) + " " + r.op;
  if (!r.param.empty()) out += " " + r.param;
  return out + " #" + std::to_string(r.n);
}

std::string digest_text(const Digest& d) {
  if (d.dtype == "none") return "None (no gradient at all)";  // what a custom backward returned
  return "hash " + d.hash + ", sum " + number(d.sum) + ", absmax " + number(d.absmax) +
         (d.nan ? ", " + std::to_string(d.nan) + " NaN" : "") +
         (d.inf ? ", " + std::to_string(d.inf) + " Inf" : "") + " (" + d.dtype + ", " +
         std::to_string(d.numel) + " elements)";
}

std::string how_text(Difference d) {
  switch (d) {
    case Difference::kWithinTolerance: return "bytes differ, statistics within the tolerance";
    case Difference::kValues: return "values differ beyond the tolerance";
    case Difference::kZerosVsNonZeros: return "zeros against non-zeros";
    case Difference::kNanInf: return "NaN/Inf counts differ";
    case Difference::kShape: return "dtype, element count or number of outputs differ";
    case Difference::kMissing: return "the run never ran it";
    case Difference::kEqual: break;
  }
  return "equal";
}

void divergence_text(const Divergence& d, std::string& out) {
  const ValueRecord& b = *d.baseline;
  if (!d.run) {
    out += "  " + identity(b) + "  (baseline record " + std::to_string(b.seq) + "): the run never ran it\n";
    if (!b.stack.empty()) out += "  baseline stack: " + b.stack.front() + "\n";
    return;
  }
  const ValueRecord& r = *d.run;
  out += "  " + identity(r) + "  (run record " + std::to_string(r.seq) + ", baseline record " +
         std::to_string(b.seq) + ")\n";
  if (d.recompute_vs_forward) out += "  a recomputed operator, against the baseline's forward original\n";
  out += "  output " + std::to_string(d.output) + ": " + how_text(d.how) + "\n";
  if (d.output < b.out.size()) out += "    baseline: " + digest_text(b.out[d.output]) + "\n";
  if (d.output < r.out.size()) out += "    run:      " + digest_text(r.out[d.output]) + "\n";
  if (!d.inputs_comparable)
    out += "  inputs: " + std::to_string(r.in.size()) + " in the run, " + std::to_string(b.in.size()) +
           " in the baseline\n";
  else if (d.inputs_differing.empty())
    out += "  inputs: all " + std::to_string(r.in.size()) +
           " equal to the baseline's: this operator is where the divergence starts\n";
  else {
    out += "  inputs differing:";
    for (size_t i : d.inputs_differing) out += " " + std::to_string(i);
    out += " (of " + std::to_string(r.in.size()) +
           "): they were changed before, by something not compared here (a copy, a race, a write "
           "outside operators)\n";
  }
  if (!r.stack.empty()) {
    out += "  stack:\n";
    for (const std::string& frame : r.stack) out += "    " + frame + "\n";
  }
}

nlohmann::json digest_json(const Digest& d) {
  return {{"hash", d.hash},     {"dtype", d.dtype}, {"numel", d.numel}, {"sum", d.sum},
          {"absmax", d.absmax}, {"nan", d.nan},     {"inf", d.inf}};
}

nlohmann::json record_json(const ValueRecord& r) {
  nlohmann::json j = {{"seq", r.seq}, {"phase", r.phase}, {"module", r.module}, {"op", r.op}, {"n", r.n}};
  if (!r.param.empty()) j["param"] = r.param;
  if (!r.stack.empty()) j["stack"] = r.stack;
  if (r.time_ns) j["time_ns"] = r.time_ns;
  if (r.thread) j["thread"] = r.thread;
  return j;
}

nlohmann::json divergence_json(const std::optional<Divergence>& d) {
  if (!d) return nullptr;
  nlohmann::json j = {{"run", d->run ? record_json(*d->run) : nlohmann::json()},
                      {"baseline", record_json(*d->baseline)},
                      {"output", d->output},
                      {"how", difference_name(d->how)},
                      {"recompute_vs_forward", d->recompute_vs_forward},
                      {"inputs_comparable", d->inputs_comparable},
                      {"inputs_differing", d->inputs_differing},
                      {"starts_here", d->run && d->inputs_comparable && d->inputs_differing.empty()}};
  // Where on the run's timeline (racetrack view --divergence): the
  // operator, or for a missing one the run's operator it should have
  // followed.
  if (const ValueRecord* at = d->run ? d->run : d->run_before; at && at->time_ns)
    j["at"] = {{"time_ns", at->time_ns}, {"thread", at->thread}, {"seq", at->seq}};
  if (!d->run) return j;
  if (d->output < d->baseline->out.size()) j["baseline_digest"] = digest_json(d->baseline->out[d->output]);
  if (d->output < d->run->out.size()) j["run_digest"] = digest_json(d->run->out[d->output]);
  return j;
}

}  // namespace

std::string format_text(const DiffResult& result, const DiffOptions& options) {
  std::string out;
  if (result.first) {
    out += "first divergence:\n";
    divergence_text(*result.first, out);
  } else {
    out += "no operator's outputs differ from the baseline";
    out += options.ignore_within_tolerance ? " beyond the tolerance\n" : "\n";
  }
  if (result.first_gradient) {
    out += "first parameter gradient that differs:\n";
    divergence_text(*result.first_gradient, out);
  }
  if (result.missing_from_run)
    out += std::to_string(result.missing_from_run) +
           " baseline operator(s) never ran in the run; the first: " + identity(*result.first_missing) +
           " (baseline record " + std::to_string(result.first_missing->seq) + ")\n";
  out += "compared " + std::to_string(result.compared) + " operators (" + std::to_string(result.equal) +
         " equal); " + std::to_string(result.recomputed_matched) +
         " recomputed matched to their forward original; " + std::to_string(result.movement_skipped) +
         " data movement skipped; " + std::to_string(result.extra_in_run) + " only in the run";
  if (result.first_extra) out += " (the first: " + identity(*result.first_extra) + ")";
  out += "\ntolerance: relative " + number(options.tolerance.relative) + ", absolute " +
         number(options.tolerance.absolute) + "\n";
  return out;
}

nlohmann::json to_json(const DiffResult& result, const DiffOptions& options) {
  return {{"schema_version", 1},  // docs/schemas/diff.schema.json
          {"diverged", result.diverged()},
          {"first_divergence", divergence_json(result.first)},
          {"first_gradient", divergence_json(result.first_gradient)},
          {"first_missing", result.first_missing ? record_json(*result.first_missing) : nlohmann::json()},
          {"first_extra", result.first_extra ? record_json(*result.first_extra) : nlohmann::json()},
          {"compared", result.compared},
          {"equal", result.equal},
          {"recomputed_matched", result.recomputed_matched},
          {"movement_skipped", result.movement_skipped},
          {"extra_in_run", result.extra_in_run},
          {"missing_from_run", result.missing_from_run},
          {"tolerance", {{"relative", options.tolerance.relative}, {"absolute", options.tolerance.absolute}}},
          {"ignore_within_tolerance", options.ignore_within_tolerance}};
}

}  // namespace racetrack::diverge
