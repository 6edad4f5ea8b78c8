#include "racetrack/replay/replay.h"

#include <algorithm>
#include <chrono>
#include <functional>

#include "host_backend.h"
#ifdef RACETRACK_HAVE_CUDA_BACKEND
#include "cuda_backend.h"
#include "cuda_results.h"
#endif

namespace racetrack::replay {
namespace {

constexpr int64_t kMaxStressNs = 10'000'000'000;

uint64_t mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

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

}  // namespace

Result<ReplayReport> replay_file(const std::string& path, const ReplayOptions& options) {
  if (options.backend != "host" && options.backend != "cuda")
    return make_error("unknown backend '" + options.backend + "' (host or cuda)");
  if (options.backend == "cuda") {
    std::string why;
    if (!cuda_available(why)) return make_error("--backend cuda: " + why);
  }
  auto program = des::load_program(path, des::CostModel{}, options.progress, options.check.code_modes,
                                    options.check.assumptions);
  if (!program) return program.error();
  const double time_scale = fit_time_budget(*program, options);
  const des::Program& p = *program;
  const ArenaPlan plan = ArenaPlan::build(p, options.granule, options.memory_limit);
  const des::ValueTracker reference(p);
  race::CheckOptions check_options = options.check;
  check_options.explain_and_fix = false;
  if (!check_options.progress) check_options.progress = options.progress;
  auto check = race::check_file(path, check_options);
  if (!check) return check.error();

  ReplayReport report;
  report.trace = path;
  report.assumptions = options.check.assumptions;
  report.backend = options.backend;
  report.ops = p.ops.size();
  report.tables = p.tables;
  report.islands = plan.islands().size();
  report.traced_bytes = plan.traced_bytes();
  report.scale = plan.scale();
  report.time_scale = time_scale;
  for (const race::Hazard& h : check->shown) report.hazards.push_back({h, 0, {}});

  // The backend: one run of the plan with the given delays.
  std::function<Result<HostRun>(const HostRunOptions&)> run_backend =
      [&](const HostRunOptions& o) -> Result<HostRun> { return run_on_host(p, plan, reference, o); };
#ifdef RACETRACK_HAVE_CUDA_BACKEND
  LaunchList launches;
  std::unique_ptr<CudaBackend> gpu;
  if (options.backend == "cuda") {
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
    // --stress: the first op of each hazard waits a seeded while in
    // [stress_ns / 2, stress_ns], so the second one's access can overtake
    // it. Hazards can exclude each other (holding the first op of one delays
    // the reader of another, or an op queued behind it on its stream), so
    // runs come in pairs: the second of a pair mirrors the first's delays
    // (d -> 3/2 stress_ns - d), which flips the order of every two held ops
    // and gives each of two such hazards its turn.
    if (options.stress)
      for (const race::Hazard& h : check->shown) {
        const int64_t half = std::clamp<int64_t>(options.stress_ns, 2, kMaxStressNs) / 2;
        const uint64_t r = mix(options.seed * 1000003 + (run / 2) * 7919 + h.first.seq);
        const int64_t delay = half + static_cast<int64_t>(r % static_cast<uint64_t>(half + 1));
        o.delays[static_cast<uint32_t>(p.index_of(h.first.seq))] = run % 2 ? 3 * half - delay : delay;
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
      const uint32_t a = static_cast<uint32_t>(p.index_of(rh.hazard.first.seq));
      const uint32_t b = static_cast<uint32_t>(p.index_of(rh.hazard.second.seq));
      bool shown = false;
      for (const des::Mismatch& m : result.mismatches) {
        if (!des::shows_hazard(m, a, b, rh.hazard)) continue;
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
