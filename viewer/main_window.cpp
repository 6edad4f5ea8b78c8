#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QThread>
#include <QToolBar>
#include <iostream>

#include "code_modes_setting.h"
#include "racetrack/race/pdl.h"

namespace racetrack::viewer {
namespace {

constexpr int kMaxRecent = 10;

QSettings settings() {
  return QSettings(QStringLiteral("racetrack"), QStringLiteral("viewer"));
}

}  // namespace

MainWindow::MainWindow(Mode mode, QWidget* parent) : QMainWindow(parent), mode_(mode) {
  setWindowTitle(tr("racetrack viewer"));
  setAcceptDrops(true);
  resize(1500, 900);
  loader_ = new TraceLoader(this);

  timeline_ = new TimelineWidget(this);
  setCentralWidget(timeline_);

  hazard_panel_ = new HazardPanel(this);
  auto* hazard_dock = new QDockWidget(tr("Hazards"), this);
  hazard_dock->setObjectName(QStringLiteral("hazards"));
  hazard_dock->setWidget(hazard_panel_);
  addDockWidget(Qt::BottomDockWidgetArea, hazard_dock);

  details_ = new DetailsPanel(this);
  auto* details_dock = new QDockWidget(tr("Details"), this);
  details_dock->setObjectName(QStringLiteral("details"));
  details_dock->setWidget(details_);
  addDockWidget(Qt::RightDockWidgetArea, details_dock);
  resizeDocks({details_dock}, {480}, Qt::Horizontal);
  resizeDocks({hazard_dock}, {230}, Qt::Vertical);

  memory_ = new MemoryView(this);
  memory_dock_ = new QDockWidget(tr("Memory"), this);
  memory_dock_->setObjectName(QStringLiteral("memory"));
  memory_dock_->setWidget(memory_);
  addDockWidget(Qt::BottomDockWidgetArea, memory_dock_);
  tabifyDockWidget(hazard_dock, memory_dock_);
  hazard_dock->raise();

  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(260);
  progress_->hide();
  status_ = new QLabel(this);
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);

  buildMenus();

  connect(loader_, &TraceLoader::progress, this, [this](LoadPhase phase, double fraction) {
    progress_->show();
    progress_->setValue(static_cast<int>(fraction * 1000));
    progress_->setFormat(phase_name(phase) + QStringLiteral(" %p%"));
    status_->setText(tr("%1 %2 \u2026").arg(phase_name(phase), pending_path_));
  });
  connect(loader_, &TraceLoader::modelReady, this, &MainWindow::onModelReady);
  connect(loader_, &TraceLoader::hazardsReady, this, &MainWindow::onHazardsReady);
  connect(loader_, &TraceLoader::failed, this, [this](const QString& path, const QString& message) {
    progress_->hide();
    status_->setText(tr("Could not open %1").arg(path));
    if (!model_ || QString::fromStdString(model_->path()) != path)
      hazard_panel_->clear(tr("No trace"));
    else
      hazard_panel_->clear(tr("The check failed: %1").arg(message));
    showError(tr("Cannot open %1\n\n%2").arg(path, message));
  });

  connect(timeline_, &TimelineWidget::opSelected, this, &MainWindow::onOpSelected);
  connect(timeline_, &TimelineWidget::selectionCleared, this, [this] { details_->clear(); });
  connect(timeline_, &TimelineWidget::secondaryOpSelected, this, [this](OpRef ref) {
    if (const auto first = timeline_->highlight().primary)
      status_->setText(tr("#%1 and #%2 selected: press H for the happens-before chain between them")
                           .arg(model_->seq(*first))
                           .arg(model_->seq(ref)));
  });
  connect(timeline_, &TimelineWidget::hazardClicked, this,
          [this](uint32_t instance) { hazard_panel_->selectInstance(instance); });
  connect(timeline_, &TimelineWidget::viewChanged, memory_, &MemoryView::setTimeRange);
  connect(hazard_panel_, &HazardPanel::instanceSelected, this, &MainWindow::selectHazardInstance);
  connect(hazard_panel_, &HazardPanel::filterChanged, this,
          [this] { timeline_->setHazardVisibility(hazard_panel_->visibleInstances()); });
  connect(details_, &DetailsPanel::opActivated, this, &MainWindow::activateSeq);
  connect(details_, &DetailsPanel::memoryRequested, this, [this](const MemoryQuery& query) {
    memory_dock_->show();
    memory_dock_->raise();
    memory_->setTimeRange(timeline_->viewStart(), timeline_->viewEnd());
    memory_->showRange(query);
  });
  connect(memory_, &MemoryView::opActivated, this, &MainWindow::activateSeq);

  if (mode_ == Mode::kInteractive) {
    QSettings s = settings();
    restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray());
    restoreState(s.value(QStringLiteral("windowState")).toByteArray());
  }
  rebuildRecentMenu();
  status_->setText(tr("Open a trace: File > Open, a recent file, or drop it on the window"));
}

MainWindow::~MainWindow() {
  loader_->wait();
  waitForChain();
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open\u2026"), QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open trace"), QString(),
        tr("racetrack traces (*.rtrace *.pbtxt *.txtpb *.textproto *.json);;All files (*)"));
    if (!path.isEmpty()) openFile(path);
  });
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  file->addAction(tr("&Export View as PNG\u2026"), QKeySequence(tr("Ctrl+E")), this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export view"), QStringLiteral("racetrack-view.png"), tr("PNG images (*.png)"));
    if (!path.isEmpty() && !exportPng(path)) showError(tr("Cannot write %1").arg(path));
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  // The timeline handles its own keys; the menu names them ("\t" hint).
  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("Zoom In\t+ / W / wheel"), this,
                  [this] { timeline_->zoomAround(1.5, timeline_->width() / 2.0); });
  view->addAction(tr("Zoom Out\t- / S"), this,
                  [this] { timeline_->zoomAround(1 / 1.5, timeline_->width() / 2.0); });
  view->addAction(tr("Zoom to Fit\tF"), this, [this] { timeline_->zoomToFit(); });
  view->addAction(tr("Zoom to Selection\tZ"), this, [this] { timeline_->zoomToSelection(); });
  view->addSeparator();
  view->addAction(tr("Show All Lanes"), this, [this] { timeline_->showAllLanes(); });
  QAction* chain = view->addAction(tr("Happens-before Chain of the Two Selected Ops"), this,
                                   &MainWindow::showChainOfSelection);
  chain->setShortcut(QKeySequence(Qt::Key_H));
  view->addSeparator();
  for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());

  QMenu* hazards = menuBar()->addMenu(tr("&Hazards"));
  QAction* next = hazards->addAction(tr("Next Hazard"), this, [this] { hazard_panel_->selectNext(); });
  next->setShortcuts({QKeySequence(Qt::Key_N), QKeySequence(Qt::Key_BracketRight)});
  QAction* previous =
      hazards->addAction(tr("Previous Hazard"), this, [this] { hazard_panel_->selectPrevious(); });
  previous->setShortcuts(
      {QKeySequence(Qt::Key_P), QKeySequence(Qt::SHIFT | Qt::Key_N), QKeySequence(Qt::Key_BracketLeft)});

  QToolBar* bar = addToolBar(tr("Search"));
  bar->setObjectName(QStringLiteral("search"));
  bar->addWidget(new QLabel(tr(" Search: "), this));
  search_box_ = new QLineEdit(this);
  search_box_->setPlaceholderText(tr("op name regex (Ctrl+F), Enter: next"));
  search_box_->setClearButtonEnabled(true);
  search_box_->setMaximumWidth(360);
  bar->addWidget(search_box_);
  QAction* find_previous = bar->addAction(tr("\u25c0"), this, [this] { search(search_box_->text(), false); });
  find_previous->setShortcut(QKeySequence::FindPrevious);
  find_previous->setToolTip(tr("Previous match (Shift+F3)"));
  QAction* find_next = bar->addAction(tr("\u25b6"), this, [this] { search(search_box_->text(), true); });
  find_next->setShortcut(QKeySequence::FindNext);
  find_next->setToolTip(tr("Next match (F3)"));
  search_status_ = new QLabel(this);
  bar->addWidget(search_status_);
  auto* focus_search = new QAction(this);
  focus_search->setShortcut(QKeySequence::Find);
  connect(focus_search, &QAction::triggered, this, [this] {
    search_box_->setFocus();
    search_box_->selectAll();
  });
  addAction(focus_search);
  connect(search_box_, &QLineEdit::returnPressed, this, [this] { search(search_box_->text(), true); });
  connect(search_box_, &QLineEdit::textChanged, this, [this] {
    search_.reset();
    search_status_->clear();
  });
}

void MainWindow::showError(const QString& message) {
  last_error_ = message;
  if (mode_ == Mode::kHeadless) {
    std::cerr << message.toStdString() << "\n";
    return;
  }
  // Window-modal and non-blocking: the event loop (and tests) keep running.
  auto* box = new QMessageBox(QMessageBox::Warning, tr("racetrack viewer"), message, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void MainWindow::openFile(const QString& path) {
  if (!QFileInfo(path).isFile()) {
    showError(tr("Cannot open %1\n\n%2")
                  .arg(path, QFileInfo::exists(path) ? tr("it is not a file") : tr("no such file")));
    return;
  }
  pending_path_ = path;
  progress_->setValue(0);
  progress_->show();
  if (!model_) hazard_panel_->clear(tr("Loading %1 \u2026").arg(path));
  loader_->start(path);
}

bool MainWindow::openFileAndWait(const QString& path) {
  last_error_.clear();
  QEventLoop loop;
  connect(loader_, &TraceLoader::finished, &loop, &QEventLoop::quit);
  openFile(path);
  if (!last_error_.isEmpty()) return false;
  loop.exec();
  return last_error_.isEmpty();
}

void MainWindow::onModelReady(const QString& path, std::shared_ptr<const TraceModel> model) {
  model_ = std::move(model);
  hazards_.reset();
  search_.reset();
  fetcher_ = std::make_unique<OpFetcher>(*model_);
  timeline_->setModel(model_);
  details_->setModel(model_, fetcher_.get());
  memory_->setModel(model_);
  memory_->setTimeRange(timeline_->viewStart(), timeline_->viewEnd());
  hazard_panel_->clear(tr("Checking for hazards \u2026"));
  setWindowTitle(tr("%1 \u2014 racetrack viewer").arg(QFileInfo(path).fileName()));
  addRecent(path);
}

void MainWindow::onHazardsReady(std::shared_ptr<const HazardModel> hazards) {
  hazards_ = std::move(hazards);
  progress_->hide();
  timeline_->setHazards(hazards_);
  hazard_panel_->setHazards(hazards_);
  const race::CheckResult& r = hazards_->result();
  status_->setText(tr("%1: %2 ops, %3 lanes, %4 hazard(s) in %5 group(s)")
                       .arg(QString::fromStdString(model_->path()))
                       .arg(model_->op_count())
                       .arg(model_->lanes().size())
                       .arg(r.hazards)
                       .arg(r.groups.size()));
}

void MainWindow::onOpSelected(OpRef ref) {
  timeline_->setSelectedHazard(std::nullopt);
  details_->showOp(ref);
}

void MainWindow::selectHazardInstance(uint32_t instance) {
  if (!hazards_ || instance >= hazards_->instances().size()) return;
  const HazardInstance& h = hazards_->instances()[instance];
  // Both ops selected (no opSelected: the details show the hazard).
  QSignalBlocker block(timeline_);
  timeline_->selectOp(h.first);
  timeline_->setSecondary(h.second);
  timeline_->setSelectedHazard(instance);
  timeline_->zoomToSelection();
  if (h.first) timeline_->ensureLaneVisible(h.first->lane);
  details_->showHazard(*hazards_, instance);
  memory_->setTimeRange(timeline_->viewStart(), timeline_->viewEnd());
  status_->setText(tr("Hazard #%1 \u2192 #%2: %3")
                       .arg(h.hazard.first.seq)
                       .arg(h.hazard.second.seq)
                       .arg(hazards_->streams(h.hazard)));
}

bool MainWindow::selectHazardGroup(int number) {
  return hazard_panel_->selectGroup(number);
}

void MainWindow::activateSeq(uint64_t seq) {
  if (!model_) return;
  const auto ref = model_->find(seq);
  if (!ref) return;
  timeline_->selectOp(*ref);
  const double s = static_cast<double>(model_->start(*ref)), e = static_cast<double>(model_->end(*ref));
  if (e < timeline_->viewStart() || s > timeline_->viewEnd()) {
    const double half = (timeline_->viewEnd() - timeline_->viewStart()) / 2;
    timeline_->setView((s + e) / 2 - half, (s + e) / 2 + half);
  }
  timeline_->ensureLaneVisible(ref->lane);
}

void MainWindow::showChainOfSelection() {
  const Highlight& h = timeline_->highlight();
  if (!model_ || !h.primary || !h.secondary) {
    status_->setText(tr("Select an op, then Ctrl+click a second one, then press H"));
    return;
  }
  waitForChain();
  const uint64_t a = std::min(model_->seq(*h.primary), model_->seq(*h.secondary));
  const uint64_t b = std::max(model_->seq(*h.primary), model_->seq(*h.secondary));
  status_->setText(tr("Searching the happens-before chain #%1 \u2192 #%2 \u2026").arg(a).arg(b));
  QPointer<MainWindow> self(this);
  const std::string path = model_->path();
  std::shared_ptr<const TraceModel> model = model_;
  chain_thread_ = QThread::create([self, path, model, a, b] {
    race::PdlWaitReader pdl(code_modes_for(path));  // rule 1a as the check reads it
    auto graph = hb::HbGraph::build_from_file(path, a, b, {}, &pdl);
    std::vector<hb::HbEdge> chain;
    QString error;
    if (graph)
      chain = graph->chain(a, b);
    else
      error = QString::fromStdString(graph.error().describe());
    QMetaObject::invokeMethod(
        self.data(),
        [self, model, a, b, chain, error] {
          if (!self || self->model_ != model) return;
          std::vector<std::pair<OpRef, OpRef>> edges;
          for (const hb::HbEdge& e : chain)
            if (auto from = model->find(e.from_seq), to = model->find(e.to_seq); from && to)
              edges.emplace_back(*from, *to);
          self->timeline_->setChain(std::move(edges));
          self->details_->showChain(a, b, chain, error);
          self->status_->setText(
              error.isEmpty()
                  ? (chain.empty()
                         ? tr("#%1 does not happen-before #%2").arg(a).arg(b)
                         : tr("#%1 happens-before #%2 through %3 edge(s)").arg(a).arg(b).arg(chain.size()))
                  : error);
        },
        Qt::QueuedConnection);
  });
  chain_thread_->start();
}

void MainWindow::waitForChain() {
  if (!chain_thread_) return;
  chain_thread_->wait();
  delete chain_thread_;
  chain_thread_ = nullptr;
}

bool MainWindow::exportPng(const QString& path) {
  return timeline_->grab().save(path, "PNG");
}

void MainWindow::search(const QString& pattern, bool forward) {
  if (!model_) return;
  if (!search_) {
    search_ = std::make_unique<OpSearch>(*model_, pattern);
    if (!search_->valid()) {
      search_status_->setText(pattern.isEmpty() ? QString() : tr("bad regex: %1").arg(search_->error()));
      return;
    }
    search_status_->setText(tr("%1 match(es)").arg(search_->count()));
  }
  if (!search_->valid()) return;
  const auto at = timeline_->highlight().primary;
  const int64_t time = at ? model_->start(*at) : static_cast<int64_t>(timeline_->viewStart());
  const uint64_t seq = at ? model_->seq(*at) : 0;
  const auto found = forward ? search_->next(time, seq) : search_->previous(time, seq);
  if (!found) {
    search_status_->setText(tr("no match"));
    return;
  }
  activateSeq(model_->seq(*found));
  // NVTX ranges are not ops: select the box itself.
  if (model_->lanes()[found->lane].type == LaneType::kNvtx) timeline_->selectOp(*found);
}

void MainWindow::addRecent(const QString& path) {
  if (mode_ != Mode::kInteractive) return;
  QSettings s = settings();
  QStringList recent = s.value(QStringLiteral("recentFiles")).toStringList();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > kMaxRecent) recent.removeLast();
  s.setValue(QStringLiteral("recentFiles"), recent);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  recent_menu_->clear();
  const QStringList recent = mode_ == Mode::kInteractive
                                 ? settings().value(QStringLiteral("recentFiles")).toStringList()
                                 : QStringList();
  for (const QString& path : recent) recent_menu_->addAction(path, this, [this, path] { openFile(path); });
  recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (mode_ == Mode::kInteractive) {
    QSettings s = settings();
    s.setValue(QStringLiteral("geometry"), saveGeometry());
    s.setValue(QStringLiteral("windowState"), saveState());
  }
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls() && !event->mimeData()->urls().isEmpty() &&
      event->mimeData()->urls().first().isLocalFile())
    event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (urls.isEmpty() || !urls.first().isLocalFile()) return;
  event->acceptProposedAction();
  openFile(urls.first().toLocalFile());
}

}  // namespace racetrack::viewer
