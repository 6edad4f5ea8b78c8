// Options and timing shared by the two overhead microbenchmarks. Each prints
// one line, step_us=<float>: host wall time per step (launches plus the
// step's final synchronisation), averaged over the measured steps.
#pragma once

#include "workload.cuh"

#include <chrono>

struct BenchOptions {
  int steps = 50;
  int warmup = 5;
  int kernels = 1000;  // launches per step
  bool annotate = false;  // add racetrack annotations to every launch
};

inline BenchOptions parse_bench_options(int argc, char** argv, const char* program, BenchOptions options) {
  for (int i = 1; i < argc; ++i) {
    const char* arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (std::strcmp(arg, "--steps") == 0 && has_value) {
      options.steps = std::atoi(argv[++i]);
    } else if (std::strcmp(arg, "--warmup") == 0 && has_value) {
      options.warmup = std::atoi(argv[++i]);
    } else if (std::strcmp(arg, "--kernels") == 0 && has_value) {
      options.kernels = std::atoi(argv[++i]);
    } else if (std::strcmp(arg, "--annotate") == 0) {
      options.annotate = true;
    } else {
      std::fprintf(stderr, "usage: %s [--steps N] [--warmup N] [--kernels N] [--annotate]\n", program);
      std::exit(2);
    }
  }
  if (options.steps < 1 || options.warmup < 0 || options.kernels < 1) {
    std::fprintf(stderr, "%s: --steps and --kernels must be positive\n", program);
    std::exit(2);
  }
  return options;
}

// Runs warmup + measured steps and prints the mean step time of the measured ones.
template <typename Step>
void time_steps(const BenchOptions& options, cudaStream_t stream, Step step) {
  for (int i = 0; i < options.warmup; ++i) step();
  CHECK_CUDA(cudaStreamSynchronize(stream));
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < options.steps; ++i) {
    step();
    CHECK_CUDA(cudaStreamSynchronize(stream));
  }
  const std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
  std::printf("step_us=%.3f\n", elapsed.count() / options.steps);
}
