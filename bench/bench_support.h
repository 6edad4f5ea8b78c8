// Shared helpers for the benchmark programs: timing, peak memory, temp files.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "racetrack/traces/synth.h"
#include "racetrack/traces/trace_io.h"

namespace racetrack::bench {

// Seconds taken by the best of `runs` calls of `f` (the least disturbed run).
template <typename F>
double best_seconds(int runs, F&& f) {
  double best = 1e300;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  return best;
}

// The median over `runs` of a/b, each pair timed back to back (a, then b,
// then a...): on a shared machine whose speed drifts from minute to minute,
// a ratio of two best-of-N times taken minutes apart measures the drift.
template <typename A, typename B>
double median_paired_ratio(int runs, A&& a, B&& b) {
  std::vector<double> ratios;
  for (int i = 0; i < runs; ++i) {
    const double ta = best_seconds(1, a), tb = best_seconds(1, b);
    ratios.push_back(ta / tb);
  }
  std::sort(ratios.begin(), ratios.end());
  return ratios[ratios.size() / 2];
}

// The least CPU time the calling thread spent in `f` over `runs` runs: for
// check, the checker's own thread without its reader thread, which is what
// its wall time comes to on two real cores.
template <typename F>
double best_thread_cpu_seconds(int runs, F&& f) {
  auto now = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
  };
  double best = 1e300;
  for (int i = 0; i < runs; ++i) {
    const double start = now();
    f();
    best = std::min(best, now() - start);
  }
  return best;
}

// Peak resident memory of this process so far, in bytes.
inline uint64_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

// Peak resident memory, in MiB, of a child process that only runs `f`: a
// figure for that one pass, not for whatever this process did before.
template <typename F>
double child_peak_mib(F&& f) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    f();
    _exit(0);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "a measured child process failed (status %d)\n", status);
    std::exit(1);
  }
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

inline std::filesystem::path bench_dir() {
  auto dir = std::filesystem::temp_directory_path() / "racetrack-bench";
  std::filesystem::create_directories(dir);
  return dir;
}

[[noreturn]] inline void fail(const Error& e) {
  std::fprintf(stderr, "%s\n", e.describe().c_str());
  std::exit(2);
}

// Writes a synth trace named `name` into the bench directory; exits on error.
inline std::string synth_trace(const std::string& name, const SynthOptions& options) {
  const std::string path = (bench_dir() / (name + ".rtrace")).string();
  auto writer = TraceWriter::create(path, options.writer);
  if (!writer) fail(writer.error());
  auto result = synthesize(options, *writer);
  if (!result) fail(result.error());
  if (auto s = writer->close(); !s) fail(s.error());
  return path;
}

// Reads and decodes a whole trace; returns its op count (exits on error).
inline uint64_t decode_all(const std::string& path) {
  auto source = TraceSource::open(path);
  if (!source) fail(source.error());
  uint64_t ops = 0;
  for (;;) {
    auto chunk = source->read();
    if (!chunk || !*chunk) break;
    ops += (*chunk)->ops_size();
  }
  return ops;
}

// How much a second core gives here: the time two decodes of `path` take
// side by side, over one alone (1.0: two real cores; 2.0: they share one).
// check overlaps its decode with checking, so its ratios to decode depend
// on it.
inline double side_by_side_slowdown(const std::string& path) {
  const double alone = best_seconds(3, [&] { decode_all(path); });
  const double pair = best_seconds(3, [&] {
    std::thread other([&] { decode_all(path); });
    decode_all(path);
    other.join();
  });
  return pair / alone;
}

// Sizes to run: 10^5 and 10^6 always; 10^7 with --large.
inline std::vector<uint64_t> bench_sizes(int argc, char** argv) {
  std::vector<uint64_t> sizes = {100000, 1000000};
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--large") sizes.push_back(10000000);
  return sizes;
}

}  // namespace racetrack::bench
