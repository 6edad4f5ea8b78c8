// Viewer benchmark on synth traces (10^6 ops; 10^7 with --large): load time
// (the timeline's model), check time, median time of a full zoomed-out
// frame, and memory per op, each with its ratio to the target (below 1 is
// within it). Targets: load <= 2 s at 10^6 and <= 20 s at 10^7; frame <=
// 16 ms at 10^6 and <= 50 ms at 10^7; memory <= 100 bytes per op beyond the
// trace file's size.
#include <malloc.h>
#include <unistd.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <algorithm>
#include <cstdio>
#include <fstream>

#include "bench_support.h"
#include "racetrack/traces/synth.h"
#include "timeline_widget.h"
#include "trace_loader.h"

namespace {

using namespace racetrack;

uint64_t current_rss_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// A synth trace with one injected hazard, made once and reused.
std::string viewer_trace(uint64_t ops) {
  const std::string name = "viewer-" + std::to_string(ops);
  const auto path = (bench::bench_dir() / (name + ".rtrace")).string();
  if (std::filesystem::exists(path)) return path;
  SynthOptions options;
  options.target_ops = ops;
  options.inject[static_cast<int>(HazardShape::kC5)] = 1;
  return bench::synth_trace(name, options);
}

double seconds_since(const QElapsedTimer& t) {
  return static_cast<double>(t.nsecsElapsed()) / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  std::vector<uint64_t> sizes = {1000000};
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--large") sizes.push_back(10000000);

  std::vector<std::string> paths;
  for (uint64_t n : sizes) paths.push_back(viewer_trace(n));  // before measuring memory
  // Ratios are against the targets: load (the timeline shows) and load plus
  // check (the hazard list shows) against the load target, the frame
  // against the frame target, memory beyond the file against 100 B/op.
  std::printf("%-9s %7s %6s %8s %7s %6s %9s %6s %9s %10s %6s %8s\n", "ops", "load s", "ratio", "check s",
              "total s", "ratio", "frame ms", "ratio", "B/op rss", "B/op-file", "ratio", "peak MB");
  for (size_t k = 0; k < sizes.size(); ++k) {
    const std::string& path = paths[k];
    const uint64_t file_size = std::filesystem::file_size(path);
    malloc_trim(0);
    const uint64_t rss_before = current_rss_bytes();

    QElapsedTimer timer;
    timer.start();
    std::shared_ptr<const viewer::TraceModel> model;
    viewer::LoadCallbacks callbacks;
    double load_s = 0;
    callbacks.model_ready = [&](std::shared_ptr<const viewer::TraceModel> m) {
      load_s = seconds_since(timer);
      model = std::move(m);
    };
    auto loaded = viewer::load_and_check(path, callbacks);
    if (!loaded) {
      std::fprintf(stderr, "%s\n", loaded.error().describe().c_str());
      return 1;
    }
    const double check_s = seconds_since(timer) - load_s;
    const uint64_t rss_after = current_rss_bytes();
    const double ops = static_cast<double>(loaded->model->op_count());
    const double per_op = static_cast<double>(rss_after - rss_before) / ops;
    const double per_op_beyond_file =
        (static_cast<double>(rss_after) - static_cast<double>(rss_before) - static_cast<double>(file_size)) /
        ops;

    viewer::TimelineWidget widget;
    widget.resize(1600, 1000);
    widget.setModel(loaded->model);
    widget.setHazards(loaded->hazards);
    widget.zoomToFit();
    QImage image(widget.size(), QImage::Format_ARGB32_Premultiplied);
    std::vector<double> frames;
    for (int i = 0; i < 31; ++i) {
      QElapsedTimer frame;
      frame.start();
      widget.render(&image);
      frames.push_back(seconds_since(frame) * 1e3);
    }
    std::sort(frames.begin(), frames.end());
    const double median_ms = frames[frames.size() / 2];
    const bool large = sizes[k] >= 10000000;
    const double load_target = large ? 20.0 : 2.0, frame_target = large ? 50.0 : 16.0;
    std::printf("%-9.0f %7.2f %6.2f %8.2f %7.2f %6.2f %9.2f %6.2f %9.1f %10.1f %6.2f %8.0f\n", ops, load_s,
                load_s / load_target, check_s, load_s + check_s, (load_s + check_s) / load_target, median_ms,
                median_ms / frame_target, per_op, per_op_beyond_file, per_op_beyond_file / 100.0,
                static_cast<double>(bench::peak_rss_bytes()) / 1e6);
    std::printf("          model %.1f B/op (%s), file %.1f B/op, hazards listed %zu\n",
                static_cast<double>(loaded->model->memory_bytes()) / ops, "lanes + dependencies + tables",
                static_cast<double>(file_size) / ops, loaded->hazards->instances().size());
  }
  return 0;
}
