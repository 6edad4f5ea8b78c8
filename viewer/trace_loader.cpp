#include "trace_loader.h"

#include <QMetaObject>
#include <QPointer>
#include <cmath>
#include <optional>

#include "code_modes_setting.h"
#include "racetrack/race/checker.h"

namespace racetrack::viewer {

QString phase_name(LoadPhase phase) {
  switch (phase) {
    case LoadPhase::kReading: return QStringLiteral("Reading");
    case LoadPhase::kChecking: return QStringLiteral("Checking");
    default: return QStringLiteral("Verifying fixes");
  }
}

Result<LoadedTrace> load_and_check(const std::string& path, const LoadCallbacks& cb) {
  auto model = load_model(path, [&](uint64_t done, uint64_t total) {
    if (cb.progress) cb.progress(LoadPhase::kReading, done, total);
    return !(cb.stop && cb.stop->load());
  });
  if (!model) return model.error();
  LoadedTrace out;
  out.model = std::shared_ptr<const TraceModel>(std::move(*model));
  if (cb.model_ready) cb.model_ready(out.model);

  race::CheckOptions options;
  options.code_modes = code_modes_for(path);
  // The check has no stop switch of its own: the progress callback, called
  // between chunks, unwinds it with an exception when a newer file wins.
  struct Stopped {};
  options.progress = [&](std::string_view stage, uint64_t done, uint64_t total) {
    if (cb.stop && cb.stop->load()) throw Stopped{};
    if (cb.progress)
      cb.progress(stage == "checking" ? LoadPhase::kChecking : LoadPhase::kVerifyingFixes, done, total);
  };
  std::optional<Result<race::CheckResult>> result;
  try {
    result.emplace(race::check_file(path, options));
  } catch (const Stopped&) {
    return Error{"loading stopped", {}, path};
  }
  if (!*result) return result->error();
  out.hazards = std::make_shared<const HazardModel>(std::move(**result), out.model);
  return out;
}

TraceLoader::TraceLoader(QObject* parent) : QObject(parent) {}

TraceLoader::~TraceLoader() {
  if (stop_) stop_->store(true);
  wait();
}

void TraceLoader::wait() {
  if (thread_) thread_->wait();
  reap();
}

void TraceLoader::reap() {
  if (thread_ && thread_->isFinished()) {
    delete thread_;
    thread_ = nullptr;
  }
}

void TraceLoader::start(const QString& path) {
  // One load at a time: a newer file stops the older one (between chunks).
  if (stop_) stop_->store(true);
  wait();
  stop_ = std::make_shared<std::atomic<bool>>(false);
  const uint64_t generation = ++generation_;
  QPointer<TraceLoader> self(this);
  auto stop = stop_;
  // Results cross to the GUI thread as queued calls; a stale generation or a
  // destroyed loader drops them.
  auto post = [self, generation](auto fn) {
    QMetaObject::invokeMethod(
        self.data(),
        [self, generation, fn] {
          if (self && self->generation_ == generation) fn(*self);
        },
        Qt::QueuedConnection);
  };
  thread_ = QThread::create([path, stop, post] {
    LoadCallbacks cb;
    cb.stop = stop.get();
    double reported = -1;
    cb.progress = [&](LoadPhase phase, uint64_t done, uint64_t total) {
      const double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
      if (std::abs(fraction - reported) < 0.01 && fraction < 1.0) return;
      reported = fraction;
      post([phase, fraction](TraceLoader& l) { emit l.progress(phase, fraction); });
    };
    cb.model_ready = [&](std::shared_ptr<const TraceModel> model) {
      post([path, model](TraceLoader& l) { emit l.modelReady(path, model); });
    };
    auto loaded = load_and_check(path.toStdString(), cb);
    if (!loaded) {
      if (stop->load()) return;
      const QString message = QString::fromStdString(loaded.error().describe());
      post([path, message](TraceLoader& l) {
        emit l.failed(path, message);
        emit l.finished();
      });
      return;
    }
    auto hazards = loaded->hazards;
    post([hazards](TraceLoader& l) {
      emit l.hazardsReady(hazards);
      emit l.finished();
    });
  });
  thread_->start();
}

}  // namespace racetrack::viewer
