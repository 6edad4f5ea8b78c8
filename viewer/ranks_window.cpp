#include "ranks_window.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <chrono>
#include <future>

#include "timeline_widget.h"

namespace racetrack::viewer {

RanksWindow::RanksWindow(QStringList paths, QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  layout->addWidget(splitter);
  for (const QString& path : paths) {
    auto* pane = new QWidget(splitter);
    auto* pane_layout = new QVBoxLayout(pane);
    pane_layout->setContentsMargins(0, 0, 0, 0);
    pane_layout->setSpacing(0);
    Rank r;
    r.path = path;
    r.header = new QLabel(QFileInfo(path).fileName(), pane);
    r.header->setStyleSheet(QStringLiteral("font-weight: bold; padding: 2px 6px;"));
    r.timeline = new TimelineWidget(pane);
    pane_layout->addWidget(r.header);
    pane_layout->addWidget(r.timeline, 1);
    splitter->addWidget(pane);
    const size_t index = ranks_.size();
    connect(r.timeline, &TimelineWidget::viewChanged, this,
            [this, index](double t0, double t1) { follow(index, t0, t1); });
    ranks_.push_back(r);
  }
  setWindowTitle(tr("%1 ranks \u2014 racetrack viewer").arg(paths.size()));
}

bool RanksWindow::openAndWait() {
  last_error_.clear();
  // Every rank loads and is checked on a thread of its own; the window
  // stays responsive meanwhile.
  std::vector<std::future<Result<LoadedTrace>>> loads;
  for (Rank& r : ranks_) {
    r.header->setText(tr("loading %1 \u2026").arg(r.path));
    loads.push_back(
        std::async(std::launch::async, [path = r.path.toStdString()] { return load_and_check(path); }));
  }
  for (auto& load : loads)
    while (load.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready)
      QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  for (size_t i = 0; i < ranks_.size(); ++i) {
    Rank& r = ranks_[i];
    auto loaded = loads[i].get();
    if (!loaded) {
      last_error_ = QString::fromStdString(loaded.error().describe());
      return false;
    }
    r.model = loaded->model;
    r.hazards = loaded->hazards;
    const v1::Header& h = r.model->tables().header();
    r.origin_ns = h.time_origin_ns();
    QString title = h.rank() >= 0 ? tr("rank %1").arg(h.rank()) : QFileInfo(r.path).fileName();
    if (!h.host().empty()) title += tr(" on %1").arg(QString::fromStdString(h.host()));
    r.header->setText(title + QStringLiteral("  \u2014  ") + r.path);
    r.timeline->setModel(r.model);
    r.timeline->setHazards(r.hazards);
  }
  align();
  return true;
}

QString RanksWindow::header(size_t i) const {
  return ranks_[i].header->text();
}

void RanksWindow::align() {
  if (ranks_.empty()) return;
  int64_t earliest = ranks_.front().origin_ns;
  for (const Rank& r : ranks_) earliest = std::min(earliest, r.origin_ns);
  double t0 = 0, t1 = 0;
  bool any = false;
  for (Rank& r : ranks_) {
    r.offset_ns = r.origin_ns - earliest;
    if (!r.model) continue;
    const double start = static_cast<double>(r.model->start_ns() + r.offset_ns);
    const double end = static_cast<double>(r.model->end_ns() + r.offset_ns);
    t0 = any ? std::min(t0, start) : start;
    t1 = any ? std::max(t1, end) : end;
    any = true;
  }
  if (any) follow(ranks_.size(), t0, t1);  // every rank shows the whole run
}

void RanksWindow::follow(size_t from, double t0, double t1) {
  if (following_) return;
  following_ = true;
  // On the shared clock: a rank's time plus its offset.
  const double shift = from < ranks_.size() ? static_cast<double>(ranks_[from].offset_ns) : 0.0;
  for (size_t i = 0; i < ranks_.size(); ++i) {
    if (i == from || !ranks_[i].model) continue;
    const double own = static_cast<double>(ranks_[i].offset_ns);
    ranks_[i].timeline->setView(t0 + shift - own, t1 + shift - own);
  }
  following_ = false;
}

}  // namespace racetrack::viewer
