#include "racetrack/replay/replay.h"

#include <algorithm>
#include <chrono>
#include <functional>

#include "hold_back.h"
#include "host_backend.h"
#ifdef RACETRACK_HAVE_CUDA_BACKEND
#include "cuda_backend.h"
#include "cuda_results.h"
#endif

namespace racetrack::replay {
namespace {

// With traced timing, scales every duration by one factor so that their sum
// (a run's length if nothing overlapped) fits the budget; returns the factor.
double fit_time_budget(des::Program& p, const ReplayOptions& options) {
  double traced_ns = 0;
  for (const des::SimOp& op : p.ops)
    traced_ns += static_cast<double>(op.call_ns) + static_cast<double>(op.device_ns);
  const double budget = static_cast<double>(std::max<int64_t>(0, options.traced_budget_ns));
  if (!options.traced_timing || traced_ns <= budget) return 1.0;
  const double scale = budget / traced_ns;
  for (des::SimOp& op : p.ops) {
    op.call_ns = static_cast<int64_t>(static_cast<double>(op.call_ns) * scale);
    op.device_ns = static_cast<int64_t>(static_cast<double>(op.device_ns) * scale);
  }
  return scale;
}

// How --stress holds hazard k, for the report.
HoldBack hold_back_of(const HoldPlan& holds, size_t k, const PairGap& gap, const ReplayOptions& options) {
  const HeldOp& held = holds.held_of(k);
  HoldBack b;
  b.sized_from = options.stress_ns > 0                ? HoldBack::kFixed
                 : gap.source == GapSource::kModelled ? HoldBack::kModelledGap
                                                      : HoldBack::kTracedGap;
  b.gap_ns = options.stress_ns > 0 ? 0 : gap.ns;
  b.shortest_ns = holds.window(held.group).shortest_ns;
  b.longest_ns = holds.window(held.group).longest_ns;
  b.capped = held.capped;
  b.held_runs = holds.runs_holding(held.group, std::max(1u, options.repeat));
  return b;
}

}  // namespace

Result<ReplayReport> replay_file(const std::string& path, const ReplayOptions& options) {
  if (options.backend != "host" && options.backend != "cuda")
    return make_error("unknown backend '" + options.backend + "' (host or cuda)");
  if (options.backend == "cuda") {
    std::string why;
    if (!cuda_available(why)) return make_error("--backend cuda: " + why);
  }
  auto check = des::check_to_demonstrate(path, options.check, options.progress);
  if (!check) return check.error();
  auto program = des::load_program(path, des::CostModel{}, options.progress, options.check.code_modes,
                                   options.check.assumptions);
  if (!program) return program.error();
  const double time_scale = fit_time_budget(*program, options);
  const des::Program& p = *program;
  const ArenaPlan plan = ArenaPlan::build(p, options.granule, options.memory_limit);
  const des::SequentialReference reference(p);

  ReplayReport report;
  report.trace = path;
  report.assumptions = options.check.assumptions;
  report.modes = check->modes;
  report.backend = options.backend;
  report.ops = p.ops.size();
  report.tables = p.tables;
  report.islands = plan.islands().size();
  report.traced_bytes = plan.traced_bytes();
  report.scale = plan.scale();
  report.time_scale = time_scale;
  for (const race::Hazard& h : check->shown) report.hazards.push_back({h, 0, {}, {}});

  // --stress: each hazard's first op held back for its pair's gap and more.
  HoldPlan holds;
  if (options.stress) {
    // --stress-ns fixes the holds: no gap is needed.
    Result<std::vector<PairGap>> gaps =
        options.stress_ns > 0 ? Result<std::vector<PairGap>>(std::vector<PairGap>(check->shown.size()))
                              : pair_gaps(path, p, check->shown, options.traced_timing, time_scale);
    if (!gaps) return gaps.error();
    holds = HoldPlan::build(
        p, check->shown, *gaps,
        {options.stress_ns, options.stress_budget_ns, options.seed, options.stress_margin_ns});
    report.stress_budget_ns = options.stress_budget_ns;
    report.stress_groups = holds.groups();
    for (size_t k = 0; k < check->shown.size(); ++k)
      report.hazards[k].hold_back = hold_back_of(holds, k, (*gaps)[k], options);
  }

  // The backend: one run of the plan with the given delays.
  std::function<Result<HostRun>(const HostRunOptions&)> run_backend =
      [&](const HostRunOptions& o) -> Result<HostRun> { return run_on_host(p, plan, reference, o); };
#ifdef RACETRACK_HAVE_CUDA_BACKEND
  LaunchList launches;
  std::unique_ptr<CudaBackend> gpu;
  if (options.backend == "cuda") {
    // An external agent's bytes land with its observer, which the GPU
    // lowering has no kernel for (docs/replay.md).
    if (!p.externals.empty())
      return make_error(
          "--backend cuda does not model external agents' accesses (ANNOTATE_EXTERNAL_ACCESS, " +
          std::to_string(p.externals.size()) + " in this trace); use --backend host");
    launches = lower_to_launches(p, plan, reference);
    std::string error;
    gpu = CudaBackend::create(launches, error);
    if (!gpu) return make_error("--backend cuda: " + error);
    run_backend = [&](const HostRunOptions& o) -> Result<HostRun> {
      DeviceRun measured;
      std::string run_error;
      if (!gpu->run(o.delays, o.traced_timing, measured, run_error))
        return make_error("--backend cuda: " + run_error);
      return assemble_run(p, plan, launches, std::move(measured));
    };
  }
#endif

  for (uint32_t run = 0; run < std::max(1u, options.repeat); ++run) {
    if (options.progress) options.progress("replaying", run, std::max(1u, options.repeat));
    HostRunOptions o;
    o.traced_timing = options.traced_timing;
    // --stress: the held ops of this run's group (docs/replay.md). The host
    // backend lets a held op go once its pairs' second ops have ended.
    if (options.stress) {
      o.delays = holds.delays(run);
      o.releases = holds.releases(run);
    }
    const auto started = std::chrono::steady_clock::now();
    auto ran = run_backend(o);
    if (!ran) return ran.error();
    HostRun& result = *ran;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    ++report.runs;
    if (run == 0) {
      report.wall_ns = static_cast<int64_t>(seconds * 1e9);
      report.ops_per_second = seconds > 0 ? static_cast<double>(p.ops.size()) / seconds : 0;
      if (!options.output.empty())
        if (auto s = des::write_timeline(path, options.output, result.times, v1::CLOCK_DOMAIN_REPLAYED,
                                         "racetrack-replay (" + options.backend + ")");
            !s)
          return s.error();
    }
    report.corrupted_reads += static_cast<uint64_t>(
        std::count_if(result.mismatches.begin(), result.mismatches.end(),
                      [](const des::Mismatch& m) { return m.reader != des::kInitial; }));
    auto seq_of = [&](uint32_t index) { return index == des::kInitial ? uint64_t{0} : p.ops[index].seq; };
    for (ReplayHazard& rh : report.hazards) {
      const des::HazardOps pair = des::hazard_ops(p, rh.hazard);
      bool shown = false;
      for (const des::Mismatch& m : result.mismatches) {
        if (!des::shows_hazard(m, pair, rh.hazard)) continue;
        shown = true;
        if (rh.manifested_runs == 0)
          rh.stale.push_back({seq_of(m.reader), seq_of(m.expected), seq_of(m.observed), m.lo, m.hi});
      }
      rh.manifested_runs += shown;
    }
  }
  return report;
}

}  // namespace racetrack::replay
