// Loads a trace and checks it off the GUI thread: the model first (the
// timeline shows as soon as it is ready), then race::check_file for the
// hazards. Results of a load that a newer one replaced are dropped.
#pragma once

#include <QObject>
#include <QString>
#include <QThread>
#include <atomic>
#include <functional>
#include <memory>

#include "hazard_model.h"
#include "trace_model.h"

namespace racetrack::viewer {

enum class LoadPhase { kReading, kChecking, kVerifyingFixes };
QString phase_name(LoadPhase phase);

struct LoadedTrace {
  std::shared_ptr<const TraceModel> model;
  std::shared_ptr<const HazardModel> hazards;
};

// The work itself, on whatever thread calls it. Progress is (phase, done,
// total bytes); `stop` is polled between chunks of the load. Errors are
// worded for a message box.
struct LoadCallbacks {
  std::function<void(LoadPhase, uint64_t, uint64_t)> progress;
  std::function<void(std::shared_ptr<const TraceModel>)> model_ready;
  const std::atomic<bool>* stop = nullptr;
};
Result<LoadedTrace> load_and_check(const std::string& path, const LoadCallbacks& callbacks = {});

class TraceLoader : public QObject {
  Q_OBJECT
 public:
  explicit TraceLoader(QObject* parent = nullptr);
  ~TraceLoader() override;

  // Starts loading `path`; a load still running is stopped first.
  void start(const QString& path);
  // Blocks until the current load has finished (tests, shutdown).
  void wait();

 signals:
  void progress(racetrack::viewer::LoadPhase phase, double fraction);
  void modelReady(const QString& path, std::shared_ptr<const racetrack::viewer::TraceModel> model);
  void hazardsReady(std::shared_ptr<const racetrack::viewer::HazardModel> hazards);
  void failed(const QString& path, const QString& message);
  void finished();

 private:
  void reap();

  QThread* thread_ = nullptr;
  std::shared_ptr<std::atomic<bool>> stop_;
  uint64_t generation_ = 0;
};

}  // namespace racetrack::viewer
