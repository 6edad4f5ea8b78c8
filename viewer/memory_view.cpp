#include "memory_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QMetaObject>
#include <QMouseEvent>
#include <QPainter>
#include <QPointer>
#include <QSplitter>
#include <QThread>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <set>

#include "code_modes_setting.h"
#include "racetrack/traces/describe.h"
#include "timeline_layout.h"

namespace racetrack::viewer {
namespace {

// As wide as the timeline's lane names, so that the two time axes line up.
constexpr int kAxisWidth = kLaneHeaderWidth;
constexpr double kMinTouchPx = 3;

constexpr std::array<QRgb, 8> kStreamPalette = {0xff3b78d8, 0xffe8772e, 0xff2e9e4f, 0xff8e44ad,
                                                0xff14a3b8, 0xffd6338a, 0xff7f9a2b, 0xff8d6e63};

QColor lane_color(uint32_t lane) {
  return QColor::fromRgb(kStreamPalette[lane % kStreamPalette.size()]);
}

}  // namespace

Result<std::vector<MemoryTouch>> scan_memory(const std::string& path, const MemoryQuery& query,
                                             const std::atomic<bool>* stop, size_t limit) {
  auto source = TraceSource::open_unchecked(path);
  if (!source) return source.error();
  TraceTables tables;
  tables.set_regions(RegionDetail::kNone);
  race::AccessResolver resolver({}, code_modes_for(path));
  std::vector<race::ResolvedAccess> accesses;
  std::vector<MemoryTouch> out;
  for (;;) {
    auto chunk = source->read();
    if (!chunk) return chunk.error();
    if (!*chunk || (stop && stop->load())) break;
    tables.add(**chunk);
    resolver.add_entities(**chunk, tables);
    for (const v1::Op& op : (*chunk)->ops()) {
      resolver.on_op(op);
      resolver.resolve(op, accesses);
      for (const race::ResolvedAccess& a : accesses)
        if (a.space == query.space && a.lo < query.hi && query.lo < a.hi)
          out.push_back({op.seq(), std::max(a.lo, query.lo), std::min(a.hi, query.hi), a.reads, a.writes});
      if (out.size() >= limit) return out;
    }
  }
  return out;
}

// Time across (the timeline's window), addresses down.
class MemoryPlot : public QWidget {
 public:
  explicit MemoryPlot(MemoryView* view) : QWidget(view), view_(view) { setMinimumHeight(120); }
  void setModel(std::shared_ptr<const TraceModel> model) { model_ = std::move(model); }
  void setTimeRange(double t0, double t1) {
    t0_ = t0;
    t1_ = t1;
    update();
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    const MemoryQuery& q = view_->query();
    if (!model_ || q.hi <= q.lo) return;
    const QRectF area(kAxisWidth, 4, width() - kAxisWidth - 4, height() - 8);
    p.fillRect(QRectF(0, 0, kAxisWidth, height()), QColor(0xee, 0xf0, 0xf3));
    p.setPen(QColor(0x5f, 0x6b, 0x76));
    p.drawText(QRectF(6, area.top(), kAxisWidth - 10, 16), Qt::AlignLeft, QString::fromStdString(hex(q.lo)));
    p.drawText(QRectF(6, area.bottom() - 16, kAxisWidth - 10, 16), Qt::AlignLeft,
               QString::fromStdString(hex(q.hi)));
    p.drawText(QRectF(6, area.center().y() - 8, kAxisWidth - 10, 16), Qt::AlignLeft,
               QString::fromStdString(format_bytes(q.hi - q.lo)));
    const double span = static_cast<double>(q.hi - q.lo);
    auto x_of = [&](double t) { return area.left() + (t - t0_) / (t1_ - t0_) * area.width(); };
    auto y_of = [&](uint64_t a) { return area.top() + static_cast<double>(a - q.lo) / span * area.height(); };
    std::vector<std::pair<QRectF, QColor>> reads;
    p.setClipRect(area);
    for (const MemoryTouch& t : view_->touches()) {
      const auto ref = model_->find(t.seq);
      if (!ref) continue;
      double x0 = x_of(static_cast<double>(model_->start(*ref))),
             x1 = x_of(static_cast<double>(model_->end(*ref)));
      if (x1 < area.left() || x0 > area.right()) continue;
      if (x1 - x0 < kMinTouchPx) x1 = x0 + kMinTouchPx;
      const QRectF r(QPointF(std::max(x0, area.left() - 2), y_of(t.lo)),
                     QPointF(std::min(x1, area.right() + 2), std::max(y_of(t.hi), y_of(t.lo) + 2)));
      const QColor c = lane_color(ref->lane);
      // Writes solid, reads hatched: a read racing a write stands out.
      if (t.writes)
        p.fillRect(r, c);
      else
        reads.emplace_back(r, c);
    }
    for (const auto& [r, c] : reads) {
      p.fillRect(r, QBrush(c, Qt::BDiagPattern));
      p.setPen(c);
      p.drawRect(r);
    }
  }

  void mousePressEvent(QMouseEvent* event) override {
    const MemoryQuery& q = view_->query();
    if (!model_ || q.hi <= q.lo) return;
    const double t = t0_ + (event->position().x() - kAxisWidth) / (width() - kAxisWidth - 4) * (t1_ - t0_);
    const double tolerance = 3.0 / (width() - kAxisWidth - 4) * (t1_ - t0_);
    for (const MemoryTouch& touch : view_->touches())
      if (const auto ref = model_->find(touch.seq))
        if (static_cast<double>(model_->start(*ref)) - tolerance <= t &&
            t <= static_cast<double>(model_->end(*ref)) + tolerance) {
          emit view_->opActivated(touch.seq);
          return;
        }
  }

 private:
  MemoryView* view_;
  std::shared_ptr<const TraceModel> model_;
  double t0_ = 0, t1_ = 1;
};

MemoryView::MemoryView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  title_ = new QLabel(
      tr("Double-click an access or a hazard's overlap in the details to see who touched it."), this);
  title_->setWordWrap(true);
  layout->addWidget(title_);
  auto* split = new QSplitter(Qt::Vertical, this);
  plot_ = new MemoryPlot(this);
  list_ = new QTreeWidget(this);
  list_->setColumnCount(5);
  list_->setHeaderLabels({tr("Seq"), tr("Op"), tr("Stream"), tr("Access"), tr("Range")});
  list_->setUniformRowHeights(true);
  list_->setRootIsDecorated(false);
  list_->header()->setStretchLastSection(true);
  split->addWidget(plot_);
  split->addWidget(list_);
  layout->addWidget(split, 1);
  connect(list_, &QTreeWidget::itemDoubleClicked, this,
          [this](QTreeWidgetItem* item) { emit opActivated(item->data(0, Qt::UserRole).toULongLong()); });
}

MemoryView::~MemoryView() {
  if (stop_) stop_->store(true);
  waitForScan();
}

void MemoryView::setModel(std::shared_ptr<const TraceModel> model) {
  if (stop_) stop_->store(true);
  model_ = model;
  plot_->setModel(std::move(model));
  query_ = {};
  touches_.clear();
  list_->clear();
  ++generation_;
  plot_->update();
}

void MemoryView::setTimeRange(double t0, double t1) {
  plot_->setTimeRange(t0, t1);
}

void MemoryView::waitForScan() {
  if (scan_) {
    scan_->wait();
    delete scan_;
    scan_ = nullptr;
  }
}

void MemoryView::showRange(const MemoryQuery& query) {
  if (!model_) return;
  if (stop_) stop_->store(true);
  waitForScan();
  query_ = query;
  touches_.clear();
  list_->clear();
  title_->setText(tr("Scanning %1 for %2 \u2026").arg(QString::fromStdString(model_->path()), query.label));
  stop_ = std::make_shared<std::atomic<bool>>(false);
  const uint64_t generation = ++generation_;
  QPointer<MemoryView> self(this);
  auto stop = stop_;
  const std::string path = model_->path();
  scan_ = QThread::create([self, generation, stop, path, query] {
    auto result = scan_memory(path, query, stop.get());
    std::vector<MemoryTouch> touches = result ? std::move(*result) : std::vector<MemoryTouch>{};
    const QString error = result ? QString() : QString::fromStdString(result.error().describe());
    QMetaObject::invokeMethod(
        self.data(),
        [self, generation, touches = std::move(touches), error]() mutable {
          if (self && self->generation_ == generation) self->showTouches(std::move(touches), error);
        },
        Qt::QueuedConnection);
  });
  scan_->start();
}

void MemoryView::showTouches(std::vector<MemoryTouch> touches, const QString& error) {
  touches_ = std::move(touches);
  if (!error.isEmpty()) {
    title_->setText(error);
    return;
  }
  std::set<uint64_t> ops;
  for (const MemoryTouch& t : touches_) ops.insert(t.seq);
  const QString space =
      query_.space == race::kHostSpace ? tr("host memory") : tr("device %1 memory").arg(query_.space - 1);
  title_->setText(
      tr("%1: %2 [%3, %4), %5: %6 access(es) by %7 op(s). Writes solid, reads hatched; colour = stream.")
          .arg(query_.label, space, QString::fromStdString(hex(query_.lo)),
               QString::fromStdString(hex(query_.hi)),
               QString::fromStdString(format_bytes(query_.hi - query_.lo)))
          .arg(touches_.size())
          .arg(ops.size()));
  QList<QTreeWidgetItem*> items;
  for (const MemoryTouch& t : touches_) {
    const auto ref = model_->find(t.seq);
    auto* item = new QTreeWidgetItem;
    item->setText(0, QString::number(t.seq));
    item->setData(0, Qt::UserRole, QVariant::fromValue<qulonglong>(t.seq));
    if (ref) {
      item->setText(1, model_->label(*ref));
      item->setText(2, model_->lanes()[ref->lane].label);
      item->setForeground(2, lane_color(ref->lane));
    }
    item->setText(3, t.reads && t.writes ? tr("read+write") : t.writes ? tr("write") : tr("read"));
    item->setText(
        4,
        QStringLiteral("[%1, %2)").arg(QString::fromStdString(hex(t.lo)), QString::fromStdString(hex(t.hi))));
    items.push_back(item);
  }
  list_->addTopLevelItems(items);
  plot_->update();
}

}  // namespace racetrack::viewer
