// The main window: the timeline in the middle, the hazard list, the details
// and the memory view in docks; File (open, recent files, export PNG),
// View, Hazards and Search; loading with a progress bar; drag and drop;
// the window layout and recent files remembered across runs.
#pragma once

#include <QMainWindow>
#include <memory>
#include <optional>

#include "details_panel.h"
#include "hazard_panel.h"
#include "memory_view.h"
#include "op_fetcher.h"
#include "op_search.h"
#include "timeline_widget.h"
#include "trace_loader.h"

class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QThread;

namespace racetrack::viewer {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  enum class Mode {
    kInteractive,  // remembers layout and recent files; errors in message boxes
    kHeadless,     // screenshots: default layout, errors to stderr
  };
  explicit MainWindow(Mode mode = Mode::kInteractive, QWidget* parent = nullptr);
  ~MainWindow() override;

  void openFile(const QString& path);
  // Opens and waits until the load and the check are done; false on error.
  bool openFileAndWait(const QString& path);
  const QString& lastError() const { return last_error_; }

  void selectHazardInstance(uint32_t instance);
  // The first occurrence of the n-th hazard group (1-based).
  bool selectHazardGroup(int number);
  // The happens-before chain between the two selected ops.
  void showChainOfSelection();
  void waitForChain();
  bool exportPng(const QString& path);
  // Regex search over op names; next/previous from the selection.
  void search(const QString& pattern, bool forward = true);

  TimelineWidget* timeline() const { return timeline_; }
  HazardPanel* hazardPanel() const { return hazard_panel_; }
  DetailsPanel* details() const { return details_; }
  MemoryView* memoryView() const { return memory_; }
  const TraceModel* model() const { return model_.get(); }
  const HazardModel* hazards() const { return hazards_.get(); }

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildMenus();
  void showError(const QString& message);
  void onModelReady(const QString& path, std::shared_ptr<const TraceModel> model);
  void onHazardsReady(std::shared_ptr<const HazardModel> hazards);
  void onOpSelected(OpRef ref);
  void activateSeq(uint64_t seq);
  void addRecent(const QString& path);
  void rebuildRecentMenu();

  Mode mode_;
  TraceLoader* loader_ = nullptr;
  std::shared_ptr<const TraceModel> model_;
  std::shared_ptr<const HazardModel> hazards_;
  std::unique_ptr<OpFetcher> fetcher_;
  std::unique_ptr<OpSearch> search_;
  TimelineWidget* timeline_ = nullptr;
  HazardPanel* hazard_panel_ = nullptr;
  DetailsPanel* details_ = nullptr;
  MemoryView* memory_ = nullptr;
  QDockWidget* memory_dock_ = nullptr;
  QLineEdit* search_box_ = nullptr;
  QLabel* search_status_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* status_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QThread* chain_thread_ = nullptr;
  QString pending_path_;
  QString last_error_;
};

}  // namespace racetrack::viewer
