#include "check_ranks.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "own_directory.h"
#include "progress.h"
#include "racetrack/code/process.h"
#include "racetrack/race/hazard_json.h"
#include "racetrack/race/rank_merge.h"

namespace racetrack::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

// The memory this process may use (--max-memory-mib sets the data limit).
uint64_t memory_budget() {
  rlimit limit{};
  if (getrlimit(RLIMIT_DATA, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 0;
  return static_cast<uint64_t>(limit.rlim_cur);
}

Result<std::string> dask_script() {
  if (const char* env = std::getenv("RACETRACK_DASK_SCRIPT"); env && *env) return std::string(env);
  if (auto dir = own_directory())
    for (const char* rel : {"../../cli/dask", "../dask", "../share/racetrack/dask"}) {
      const fs::path script = *dir / rel / "racetrack_dask.py";
      std::error_code ec;
      if (fs::exists(script, ec)) return script.lexically_normal().string();
    }
  return Error{
      "racetrack_dask.py not found beside the racetrack binary (cli/dask); set RACETRACK_DASK_SCRIPT",
      {},
      {}};
}

// Each trace checked by `racetrack check` on a Dask worker.
Result<std::vector<race::RankReport>> check_on_dask(const RanksRun& run) {
  auto script = dask_script();
  if (!script) return script.error();
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);  // this binary, for the workers to run
  std::vector<std::string> argv = {"/usr/bin/env",
                                   "python3",
                                   *script,
                                   "--scheduler",
                                   run.dask,
                                   "--racetrack",
                                   ec ? std::string("racetrack") : self.string()};
  for (const std::string& arg : run.worker_args) argv.insert(argv.end(), {"--worker-arg=" + arg});
  for (const std::string& path : run.paths) argv.push_back(fs::absolute(path).string());
  // Its progress and messages go to stderr as they come.
  auto ran =
      code::run_process(argv, std::chrono::hours(24 * 7), [](std::string_view text) { std::cerr << text; });
  if (!ran) return ran.error();
  if (ran->exit_code != 0)
    return Error{
        "the Dask run failed (exit status " + std::to_string(ran->exit_code) + "; its messages are above)",
        {},
        run.dask};
  std::vector<race::RankReport> out;
  try {
    const json doc = json::parse(ran->out);
    for (const json& r : doc.at("results")) {
      race::RankReport report;
      report.path = r.at("path").get<std::string>();
      if (r.at("error").is_string())
        report.error = r.at("error").get<std::string>();
      else
        report.report = r.at("report");
      out.push_back(std::move(report));
    }
  } catch (const json::exception& e) {
    return Error{
        std::string("the Dask run's output is not what racetrack_dask.py writes: ") + e.what(), {}, run.dask};
  }
  return out;
}

}  // namespace

int run_check_ranks(RanksRun& run) {
  std::vector<race::RankReport> reports;
  if (!run.dask.empty()) {
    auto remote = check_on_dask(run);
    if (!remote) {
      std::cerr << remote.error().describe() << "\n";
      return kExitBadInput;
    }
    reports = std::move(*remote);
  } else {
    ProgressLine progress;
    const Progress line = progress.callback();
    if (line) run.many.progress = [&](size_t done, size_t total) { line("checking traces", done, total); };
    run.many.memory_bytes = memory_budget();
    race::PoolSize size;
    reports = race::check_many(run.paths, run.many, &size);
    progress.finish();
    std::cerr << "check: " << run.paths.size() << " traces on " << size.jobs
              << " thread(s) (one check peaked at " << (size.peak_bytes >> 20) << " MiB)\n";
  }
  const json merged = race::merge_rank_reports(reports);
  if (run.format == "json")
    std::cout << race::dump_json(merged);
  else
    std::cout << race::format_ranks_text(merged, run.max_groups);
  const json& summary = merged["summary"];
  if (summary["checked"].get<uint64_t>() == 0) {
    std::cerr << "check: none of the " << run.paths.size() << " traces could be checked\n";
    return kExitBadInput;
  }
  return summary["shown_groups"].get<uint64_t>() ? kExitFindings : kExitOk;
}

}  // namespace racetrack::cli
