// The memory view: which ops touched a range of memory over time, on which
// streams, reading or writing. A background pass resolves every op's
// accesses as the checker does (race::AccessResolver) and keeps those that
// overlap the range; the plot shares the timeline's time axis, with
// addresses going down.
#pragma once

#include <QWidget>
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "racetrack/race/access.h"
#include "trace_model.h"

class QLabel;
class QThread;
class QTreeWidget;

namespace racetrack::viewer {

struct MemoryQuery {
  race::SpaceKey space = race::kHostSpace;
  uint64_t lo = 0, hi = 0;
  QString label;  // "region P", "hazard overlap"
};

struct MemoryTouch {
  uint64_t seq = 0;
  uint64_t lo = 0, hi = 0;  // clipped to the query
  bool reads = false, writes = false;
};

// Every access overlapping the query, in seq order (at most `limit`).
Result<std::vector<MemoryTouch>> scan_memory(const std::string& path, const MemoryQuery& query,
                                             const std::atomic<bool>* stop = nullptr, size_t limit = 200000);

class MemoryPlot;

class MemoryView : public QWidget {
  Q_OBJECT
 public:
  explicit MemoryView(QWidget* parent = nullptr);
  ~MemoryView() override;

  void setModel(std::shared_ptr<const TraceModel> model);
  // Starts a scan; the result shows when it is done.
  void showRange(const MemoryQuery& query);
  // The timeline's visible range (the plot follows it).
  void setTimeRange(double t0, double t1);
  void waitForScan();

  const std::vector<MemoryTouch>& touches() const { return touches_; }
  const MemoryQuery& query() const { return query_; }

 signals:
  void opActivated(uint64_t seq);

 private:
  void showTouches(std::vector<MemoryTouch> touches, const QString& error);

  std::shared_ptr<const TraceModel> model_;
  MemoryQuery query_;
  std::vector<MemoryTouch> touches_;
  QLabel* title_ = nullptr;
  MemoryPlot* plot_ = nullptr;
  QTreeWidget* list_ = nullptr;
  QThread* scan_ = nullptr;
  std::shared_ptr<std::atomic<bool>> stop_;
  uint64_t generation_ = 0;
};

}  // namespace racetrack::viewer
