#include "racetrack/race/check_many.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <thread>

namespace racetrack::race {
namespace {

uint64_t peak_resident_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

uint64_t file_bytes(const std::string& path) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  return ec ? 0 : size;
}

RankReport check_one(const std::string& path, const ManyOptions& options) {
  RankReport out;
  out.path = path;
  auto result = check_file(path, options.check);
  if (!result) {
    out.error = result.error().describe();
    return out;
  }
  ReportOptions report = options.report;
  report.trace_path = path;
  std::ostringstream text;
  write_json(text, *result, report);
  out.report = nlohmann::ordered_json::parse(text.str());
  return out;
}

}  // namespace

unsigned pool_jobs(const std::vector<std::string>& paths, uint64_t first_peak_bytes, uint64_t memory_bytes,
                   unsigned cores) {
  if (paths.size() <= 1) return 1;
  unsigned jobs = std::min<uint64_t>(std::max(cores, 1u), paths.size() - 1);
  if (memory_bytes == 0) return jobs;
  // A check's memory grows with its trace: scale the measured peak to the
  // largest file, with a quarter more for what one measurement misses.
  constexpr uint64_t kFloor = 64ull << 20;
  const uint64_t first = std::max<uint64_t>(file_bytes(paths.front()), 1);
  uint64_t largest = first;
  for (const std::string& p : paths) largest = std::max(largest, file_bytes(p));
  const double scale = static_cast<double>(largest) / static_cast<double>(first);
  const uint64_t per_check =
      std::max<uint64_t>(kFloor, static_cast<uint64_t>(static_cast<double>(first_peak_bytes) * scale * 1.25));
  return static_cast<unsigned>(std::clamp<uint64_t>(memory_bytes / per_check, 1, jobs));
}

std::vector<RankReport> check_many(const std::vector<std::string>& paths, const ManyOptions& options,
                                   PoolSize* size) {
  std::vector<RankReport> out(paths.size());
  if (paths.empty()) return out;
  ManyOptions quiet = options;
  quiet.check.progress = nullptr;
  std::mutex progress_mutex;
  size_t done = 0;
  auto finished = [&] {
    if (!options.progress) return;
    std::lock_guard lock(progress_mutex);
    options.progress(++done, paths.size());
  };

  const uint64_t before = peak_resident_bytes();
  out[0] = check_one(paths[0], quiet);
  const uint64_t peak = peak_resident_bytes() - before;
  finished();
  const unsigned jobs =
      options.jobs ? options.jobs
                   : pool_jobs(paths, peak, options.memory_bytes, std::thread::hardware_concurrency());
  if (size) *size = PoolSize{jobs, peak};

  std::atomic<size_t> next{1};
  auto work = [&] {
    for (size_t i = next++; i < paths.size(); i = next++) {
      out[i] = check_one(paths[i], quiet);
      finished();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned j = 1; j < jobs; ++j) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return out;
}

}  // namespace racetrack::race
