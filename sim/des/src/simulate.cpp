#include "racetrack/des/simulate.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

#include "racetrack/hb/happens_before.h"
#include "racetrack/race/fix.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::des {
namespace {

Result<uint32_t> stream_named(const TraceTables& t, const std::string& name) {
  std::string known;
  for (const auto& s : t.streams()) {
    if (name == std::to_string(s.id()) || (s.name() && t.string(s.name()) == name) ||
        role_name(s.role()) == name)
      return s.id();
    known += (known.empty() ? "" : ", ") + t.stream_label(s.id());
  }
  return make_error("no stream named '" + name + "' (streams: " + known + ")");
}

std::vector<std::string> tainted_regions(const Program& p, const std::vector<bool>& tainted, size_t limit) {
  std::set<std::string> labels;
  for (uint32_t i = 0; i < p.ops.size() && labels.size() < limit; ++i) {
    if (!tainted[i]) continue;
    const SimOp& op = p.ops[i];
    for (uint32_t a = op.accesses; a < op.accesses + op.access_count; ++a)
      if (p.accesses[a].writes && p.accesses[a].label)
        labels.insert(std::string(p.tables->string(p.accesses[a].label)));
  }
  return {labels.begin(), labels.end()};
}

struct Tracked {
  RunResult run;
  std::vector<Mismatch> mismatches;
  std::vector<bool> tainted;
  uint64_t tainted_count = 0;
};

Result<Tracked> tracked_run(const Program& p, const SequentialReference& reference, const Schedule& s) {
  ValueTracker tracker(p, reference);
  auto r = run(p, s, &tracker);
  if (!r) return r.error();
  tracker.finish();
  return Tracked{std::move(*r), tracker.mismatches(), tracker.tainted(), tracker.tainted_count()};
}

// --add-wait names only the two ops: the edit is completed as the checker's
// fixes are, an event recorded on the first op's stream and waited for by
// the second op's stream (or, for a host op, its thread), so the fixed trace
// can be written and re-checked.
Result<race::FixEdit> completed(const Program& p, race::FixEdit e) {
  const size_t a = p.index_of(e.after_seq), b = p.index_of(e.before_seq);
  if (a == p.ops.size() || b == p.ops.size())
    return make_error("--add-wait names an op that is not in the trace (" + std::to_string(e.after_seq) +
                      " or " + std::to_string(e.before_seq) + ")");
  if (!p.ops[a].device)
    return make_error("--add-wait " + std::to_string(e.after_seq) + ":" + std::to_string(e.before_seq) +
                      ": #" + std::to_string(e.after_seq) +
                      " is a host call; only stream work can be waited for");
  e.record_stream = p.ops[a].stream;
  e.record_thread = p.ops[a].thread + 1;
  e.wait_stream = p.ops[b].device ? p.ops[b].stream : 0;
  e.thread = p.ops[b].thread + 1;
  return e;
}

// Every fix as a dependency: the second op waits for the first op's end.
// An edit naming an op the program does not have adds nothing.
Schedule with_edits(const Program& p, Schedule s, const std::vector<race::FixEdit>& edits) {
  for (const auto& e : edits) {
    const size_t a = p.index_of(e.after_seq), b = p.index_of(e.before_seq);
    if (a >= p.ops.size() || b >= p.ops.size()) continue;
    s.extra_deps[static_cast<uint32_t>(b)].push_back(
        {static_cast<uint32_t>(a), p.ops[a].device ? Dep::kDeviceEnd : Dep::kHostEnd});
  }
  return s;
}

}  // namespace

Result<race::CheckResult> check_to_demonstrate(const std::string& path, race::CheckOptions options,
                                               const Progress& progress) {
  options.explain_and_fix = false;
  if (!options.progress) options.progress = progress;
  auto result = race::check_file(path, options);
  // The check's threads freed their buffers into arenas of their own; give
  // those pages back before the program is loaded.
  malloc_trim(0);
  return result;
}

Result<SimReport> simulate_file(const std::string& path, const SimOptions& options) {
  auto check = check_to_demonstrate(path, options.check, options.progress);
  if (!check) return check.error();

  auto program = load_program(path, options.costs, options.progress, options.check.code_modes,
                              options.check.assumptions);
  if (!program) return program.error();
  const Program& p = *program;
  Schedule base = options.schedule;
  for (const auto& [name, factor] : options.slow) {
    auto id = stream_named(*p.tables, name);
    if (!id) return id.error();
    base.stream_slowdown[*id] = factor;
  }

  SimReport report;
  report.trace = path;
  report.assumptions = options.check.assumptions;
  report.ops = p.ops.size();
  report.tables = p.tables;
  report.modes = check->modes;
  // Every run below is compared with the same sequential run.
  const SequentialReference reference(p);
  auto given = tracked_run(p, reference, base);
  if (!given) return given.error();
  report.makespan_ns = given->run.makespan_ns;
  report.corruptions =
      static_cast<uint64_t>(std::count_if(given->mismatches.begin(), given->mismatches.end(),
                                          [](const Mismatch& m) { return m.reader != kInitial; }));
  report.tainted_ops = given->tainted_count;
  if (!options.output.empty())
    if (auto s =
            write_timeline(path, options.output, given->run, v1::CLOCK_DOMAIN_SIMULATED, "racetrack-sim");
        !s)
      return s.error();
  // Only the makespan is used from here on: the runs below need the memory.
  given->run.times = {};

  // One verdict per hazard: under the schedule as given, or adversarially,
  // with the first op held back until everything else has run.
  const int64_t hold = add_ns(given->run.makespan_ns, 1);
  for (size_t k = 0; k < check->shown.size(); ++k) {
    const race::Hazard& h = check->shown[k];
    HazardVerdict v;
    v.hazard = h;
    const HazardOps pair = hazard_ops(p, h);
    const Tracked* evidence = &*given;
    std::optional<Tracked> adversarial;
    if (options.adversarial && k < options.max_adversarial) {
      if (options.progress)
        options.progress("demonstrating hazards", k, std::min(check->shown.size(), options.max_adversarial));
      Schedule s = base;
      s.delays[pair.held] = hold;
      auto r = tracked_run(p, reference, s);
      if (!r) return r.error();
      adversarial.emplace(std::move(*r));
      evidence = &*adversarial;
      v.schedule = "adversarial";
    } else {
      v.schedule = "as given";
    }
    auto seq_of = [&](uint32_t index) { return index == kInitial ? uint64_t{0} : p.ops[index].seq; };
    for (const Mismatch& m : evidence->mismatches)
      if (shows_hazard(m, pair, h))
        v.stale.push_back({seq_of(m.reader), seq_of(m.expected), seq_of(m.observed), m.lo, m.hi});
    v.manifested = !v.stale.empty();
    if (v.manifested) {
      v.tainted_ops = evidence->tainted_count;
      v.tainted_regions = tainted_regions(p, evidence->tainted, 12);
    }
    report.hazards.push_back(std::move(v));
  }

  // What-if: the fixes as dependencies, their makespan, and whether any
  // schedule of the fixed trace still corrupts data.
  std::vector<race::FixEdit> edits;
  for (const race::FixEdit& e : options.add_waits) {
    auto edit = completed(p, e);
    if (!edit) return edit.error();
    edits.push_back(*edit);
  }
  if (options.apply_fixes) {
    const auto fixes = race::fix_edits(*check);
    edits.insert(edits.end(), fixes.begin(), fixes.end());
  }
  if (options.apply_fixes || !edits.empty()) {
    WhatIf& w = report.what_if;
    w.ran = true;
    w.edits = edits.size();
    const Schedule fixed = with_edits(p, base, edits);
    // The fixed trace as given, held back as each demonstrated hazard was
    // (the first max_adversarial), and under seeded jitter: one schedule at a
    // time, so memory stays that of one run.
    const size_t held = std::min(check->shown.size(), options.max_adversarial);
    for (size_t j = 0; j < 1 + held + options.jitter_schedules; ++j) {
      Schedule s = fixed;
      if (j >= 1 && j <= held) {
        s.delays[hazard_ops(p, check->shown[j - 1]).held] = hold;
      } else if (j > held) {
        s.jitter_sigma = std::max(0.2, s.jitter_sigma);
        s.seed = base.seed + (j - held);
      }
      if (options.progress) options.progress("trying the fixes", j, 1 + held + options.jitter_schedules);
      auto r = tracked_run(p, reference, s);
      if (!r) return r.error();
      if (j == 0) w.makespan_ns = r->run.makespan_ns;
      ++w.schedules_tried;
      if (!r->mismatches.empty()) ++w.corrupted_schedules;
    }
    w.makespan_change_pct =
        report.makespan_ns
            ? 100.0 * (static_cast<double>(w.makespan_ns) - static_cast<double>(report.makespan_ns)) /
                  static_cast<double>(report.makespan_ns)
            : 0;
    std::error_code no_tmpdir;
    const auto tmpdir = std::filesystem::temp_directory_path(no_tmpdir);
    if (no_tmpdir)
      return make_error(
          "--apply-fixes re-checks the fixed trace in a temporary file, and the temporary "
          "directory cannot be used (" +
          no_tmpdir.message() + "; set TMPDIR to a directory that exists)");
    const std::string temp =
        (tmpdir / ("racetrack-sim-fixed-" + std::to_string(getpid()) + ".rtrace")).string();
    if (auto s = race::write_fixed_trace(path, temp, edits); !s) return s.error();
    auto recheck = check_to_demonstrate(temp, options.check, options.progress);
    std::filesystem::remove(temp);
    if (!recheck) return recheck.error();
    w.hazards_left = recheck->shown.size();
  }
  return report;
}

Status write_timeline(const std::string& path, const std::string& out_path, const RunResult& run,
                      v1::ClockDomain domain, const std::string& producer) {
  v1::Chunk copy;
  size_t index = 0;
  return transform_trace(path, out_path, [&](const v1::Chunk& chunk) -> const v1::Chunk& {
    copy = chunk;
    if (copy.has_header()) {
      copy.mutable_header()->set_clock_domain(domain);
      copy.mutable_header()->set_producer(producer);
    }
    for (v1::Op& op : *copy.mutable_ops()) {
      const OpTimes& t = run.times.at(index++);
      op.set_host_start(t.host_start);
      op.set_host_end(t.host_end);
      if (hb::is_device_op(op)) {
        op.set_device_start(t.device_start);
        op.set_device_end(t.device_end);
      } else {
        op.clear_device_start();
        op.clear_device_end();
      }
    }
    return copy;
  });
}

}  // namespace racetrack::des
