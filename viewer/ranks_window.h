// Several rank traces of one run side by side (docs/distributed.md): a
// timeline per rank, stacked, each headed by its rank and host, with its own
// hazards; their views move together, on clocks aligned from the headers'
// time origins (a trace's times are shifted by its origin minus the
// earliest one).
#pragma once

#include <QStringList>
#include <QWidget>
#include <memory>
#include <vector>

#include "trace_loader.h"

class QLabel;

namespace racetrack::viewer {

class TimelineWidget;

class RanksWindow : public QWidget {
  Q_OBJECT
 public:
  explicit RanksWindow(QStringList paths, QWidget* parent = nullptr);

  // Loads and checks every trace; false (and lastError) if one failed.
  bool openAndWait();
  const QString& lastError() const { return last_error_; }

  size_t rankCount() const { return ranks_.size(); }
  TimelineWidget* timeline(size_t i) const { return ranks_[i].timeline; }
  QString header(size_t i) const;
  // What rank i's times are shifted by to share the earliest origin.
  int64_t offsetNs(size_t i) const { return ranks_[i].offset_ns; }
  const HazardModel* hazards(size_t i) const { return ranks_[i].hazards.get(); }

 private:
  struct Rank {
    QString path;
    QLabel* header = nullptr;
    TimelineWidget* timeline = nullptr;
    std::shared_ptr<const TraceModel> model;
    std::shared_ptr<const HazardModel> hazards;
    int64_t origin_ns = 0, offset_ns = 0;
  };
  void align();
  // Rank `from`'s view moved: the others follow, on the shared clock.
  void follow(size_t from, double t0, double t1);

  std::vector<Rank> ranks_;
  QString last_error_;
  bool following_ = false;
};

}  // namespace racetrack::viewer
