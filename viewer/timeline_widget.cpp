#include "timeline_widget.h"

#include <QContextMenuEvent>
#include <QGestureEvent>
#include <QHash>
#include <QMenu>
#include <QNativeGestureEvent>
#include <QPainter>
#include <QPainterPath>
#include <QPinchGesture>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace racetrack::viewer {
namespace {

constexpr double kMinSpanNs = 20;  // deepest zoom: 20 ns across the view
constexpr double kFitMargin = 0.02;
constexpr double kWheelZoomPerNotch = 1.25;  // a notch is 120 units of angleDelta
constexpr double kKeyZoom = 1.5;
constexpr double kKeyPanFraction = 0.15;
constexpr double kDragThreshold = 4;
constexpr int kLabelMinPx = 28;

const QColor kBackground(0xff, 0xff, 0xff);
const QColor kAltRow(0xf7, 0xf8, 0xfa);
const QColor kHeaderBackground(0xee, 0xf0, 0xf3);
const QColor kGroupBackground(0xdc, 0xe1, 0xe8);
const QColor kGridLine(0xe4, 0xe7, 0xeb);
const QColor kText(0x1f, 0x25, 0x2b);
const QColor kMutedText(0x5f, 0x6b, 0x76);

bool dark(const QColor& c) {
  return c.lightnessF() < 0.62;
}

}  // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setMinimumSize(400, 200);
  setAttribute(Qt::WA_OpaquePaintEvent);
  grabGesture(Qt::PinchGesture);
  vbar_ = new QScrollBar(Qt::Vertical, this);
  vbar_->hide();
  connect(vbar_, &QScrollBar::valueChanged, this, [this](int v) {
    scroll_y_ = v;
    update();
  });
}

void TimelineWidget::setModel(std::shared_ptr<const TraceModel> model) {
  model_ = std::move(model);
  hazards_.reset();
  hazard_visible_.clear();
  highlight_ = {};
  scroll_y_ = 0;
  present_.reset();
  if (model_) {
    order_ = LaneOrder::by_groups(*model_);
    for (const Lane& lane : model_->lanes())
      if (lane.type != LaneType::kNvtx)
        for (OpCategory c : lane.category) present_.set(static_cast<size_t>(c));
    zoomToFit();
  } else {
    order_ = {};
  }
  updateScrollBar();
  update();
}

void TimelineWidget::setHazards(std::shared_ptr<const HazardModel> hazards) {
  hazards_ = std::move(hazards);
  hazard_visible_.clear();
  highlight_.hazard.reset();
  update();
}

void TimelineWidget::setHazardVisibility(std::vector<uint8_t> visible) {
  hazard_visible_ = std::move(visible);
  update();
}

Viewport TimelineWidget::viewport() const {
  Viewport vp;
  vp.t0 = t0_;
  vp.t1 = t1_;
  vp.width = width() - (vbar_->isVisible() ? vbar_->width() : 0);
  vp.height = height();
  vp.scroll_y = scroll_y_;
  return vp;
}

Frame TimelineWidget::frame() const {
  if (!model_) return {};
  FrameInput in;
  in.model = model_.get();
  in.hazards = hazards_.get();
  in.hazard_visible = hazard_visible_.empty() ? nullptr : &hazard_visible_;
  in.order = &order_;
  in.viewport = viewport();
  in.highlight = highlight_;
  return build_frame(in);
}

int TimelineWidget::hiddenLaneCount() const {
  return model_ ? static_cast<int>(model_->lanes().size() - order_.lanes.size()) : 0;
}

// ---- view

void TimelineWidget::setView(double t0, double t1) {
  if (!model_) return;
  const double span_all = static_cast<double>(model_->end_ns() - model_->start_ns());
  const double lo = static_cast<double>(model_->start_ns()) - span_all * 0.5;
  const double hi = static_cast<double>(model_->end_ns()) + span_all * 0.5;
  double span = std::clamp(t1 - t0, kMinSpanNs, hi - lo);
  t0 = std::clamp(t0, lo, hi - span);
  t0_ = t0;
  t1_ = t0 + span;
  update();
  emit viewChanged(t0_, t1_);
}

void TimelineWidget::zoomToFit() {
  if (!model_) return;
  const double s = static_cast<double>(model_->start_ns()), e = static_cast<double>(model_->end_ns());
  const double margin = (e - s) * kFitMargin;
  setView(s - margin, e + margin);
}

void TimelineWidget::zoomAround(double factor, double x) {
  if (!model_ || factor <= 0) return;
  const Viewport vp = viewport();
  const double anchor = vp.time_at(std::clamp(x, vp.content_left(), static_cast<double>(vp.width)));
  const double span = std::max((t1_ - t0_) / factor, kMinSpanNs);
  const double left = (anchor - t0_) / (t1_ - t0_);
  setView(anchor - left * span, anchor - left * span + span);
}

void TimelineWidget::panByPixels(double dx) {
  const double dt = dx * viewport().ns_per_px();
  setView(t0_ + dt, t1_ + dt);
}

void TimelineWidget::zoomToRange(double t0, double t1) {
  const double span = std::max(t1 - t0, kMinSpanNs);
  setView(t0 - span * 0.25, t1 + span * 0.25);
}

void TimelineWidget::zoomToSelection() {
  if (!model_) return;
  std::optional<double> lo, hi;
  auto include = [&](const std::optional<OpRef>& ref) {
    if (!ref) return;
    const double s = static_cast<double>(model_->start(*ref)), e = static_cast<double>(model_->end(*ref));
    lo = lo ? std::min(*lo, s) : s;
    hi = hi ? std::max(*hi, e) : e;
  };
  include(highlight_.primary);
  include(highlight_.secondary);
  if (hazards_ && highlight_.hazard && *highlight_.hazard < hazards_->instances().size()) {
    include(hazards_->instances()[*highlight_.hazard].first);
    include(hazards_->instances()[*highlight_.hazard].second);
  }
  if (lo) zoomToRange(*lo, *hi);
}

void TimelineWidget::ensureLaneVisible(uint32_t lane) {
  if (!model_) return;
  const Viewport vp = viewport();
  const int area = vp.rows_bottom() - vp.rows_top();
  for (const RowSlot& slot : row_slots(*model_, order_))
    if (slot.lane == lane) {
      if (slot.y < scroll_y_ || slot.y + slot.height > scroll_y_ + area)
        scrollRows(slot.y - area / 2 - scroll_y_);
      return;
    }
}

int TimelineWidget::contentHeight() const {
  if (!model_) return 0;
  const auto layout = row_slots(*model_, order_);
  return layout.empty() ? 0 : layout.back().y + layout.back().height;
}

void TimelineWidget::scrollRows(int dy) {
  const int area = viewport().rows_bottom() - viewport().rows_top();
  const int max_scroll = std::max(0, contentHeight() - area);
  scroll_y_ = std::clamp(scroll_y_ + dy, 0, max_scroll);
  vbar_->setValue(scroll_y_);
  update();
}

void TimelineWidget::updateScrollBar() {
  const int area = height() - kRulerHeight - kLegendHeight;
  const int content = contentHeight();
  const bool needed = content > area;
  vbar_->setGeometry(width() - vbar_->sizeHint().width(), kRulerHeight, vbar_->sizeHint().width(),
                     std::max(0, area));
  vbar_->setVisible(needed);
  vbar_->setRange(0, std::max(0, content - area));
  vbar_->setPageStep(std::max(1, area));
  vbar_->setSingleStep(kLaneHeight);
  scroll_y_ = std::clamp(scroll_y_, 0, vbar_->maximum());
  vbar_->setValue(scroll_y_);
}

// ---- selection

void TimelineWidget::selectOp(std::optional<OpRef> ref) {
  highlight_.primary = ref;
  highlight_.chain.clear();
  update();
  if (ref)
    emit opSelected(*ref);
  else
    emit selectionCleared();
}

void TimelineWidget::setSecondary(std::optional<OpRef> ref) {
  highlight_.secondary = ref;
  highlight_.chain.clear();
  update();
  if (ref) emit secondaryOpSelected(*ref);
}

void TimelineWidget::setSelectedHazard(std::optional<uint32_t> instance) {
  highlight_.hazard = instance;
  update();
}

void TimelineWidget::setChain(std::vector<std::pair<OpRef, OpRef>> chain) {
  highlight_.chain = std::move(chain);
  update();
}

// ---- lanes

void TimelineWidget::moveLaneTo(uint32_t lane, size_t position) {
  auto& lanes = order_.lanes;
  auto it = std::find(lanes.begin(), lanes.end(), lane);
  if (it == lanes.end()) return;
  lanes.erase(it);
  lanes.insert(lanes.begin() + static_cast<ptrdiff_t>(std::min(position, lanes.size())), lane);
  updateScrollBar();
  update();
}

void TimelineWidget::moveLane(uint32_t lane, int delta) {
  auto& lanes = order_.lanes;
  auto it = std::find(lanes.begin(), lanes.end(), lane);
  if (it == lanes.end()) return;
  const auto at = static_cast<ptrdiff_t>(it - lanes.begin());
  moveLaneTo(lane, static_cast<size_t>(
                       std::clamp<ptrdiff_t>(at + delta, 0, static_cast<ptrdiff_t>(lanes.size()) - 1)));
}

void TimelineWidget::hideLane(uint32_t lane) {
  auto& lanes = order_.lanes;
  lanes.erase(std::remove(lanes.begin(), lanes.end(), lane), lanes.end());
  updateScrollBar();
  update();
}

void TimelineWidget::showAllLanes() {
  if (!model_) return;
  // Hidden lanes come back where the default order has them.
  LaneOrder all = LaneOrder::by_groups(*model_);
  for (uint32_t l : all.lanes)
    if (std::find(order_.lanes.begin(), order_.lanes.end(), l) == order_.lanes.end())
      order_.lanes.push_back(l);
  updateScrollBar();
  update();
}

// ---- painting

void TimelineWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), kBackground);
  if (!model_) {
    p.setPen(kMutedText);
    p.drawText(rect(), Qt::AlignCenter, tr("Open a racetrack trace (File > Open, or drop a file here)"));
    return;
  }
  const Frame f = frame();
  paintRows(p, f);
  p.save();
  p.setClipRect(QRectF(QPointF(f.viewport.content_left(), f.viewport.rows_top()),
                       QPointF(f.viewport.width, f.viewport.rows_bottom())));
  paintBoxes(p, f);
  paintHazards(p, f);
  paintArrows(p, f);
  paintSelection(p, f);
  paintDivergence(p, f);
  p.restore();
  if (f.thinned_arrows) {
    // Say that arrows were left out, so their absence is not read as "none".
    p.setPen(kMutedText);
    p.drawText(
        QRectF(f.viewport.content_left(), f.viewport.rows_bottom() - 18, f.viewport.content_width() - 6, 16),
        Qt::AlignRight | Qt::AlignVCenter,
        tr("%1 record\u2192wait arrows left out at this zoom").arg(f.thinned_arrows));
  }
  paintRuler(p, f);
  paintLegend(p);
}

void TimelineWidget::paintRows(QPainter& p, const Frame& f) const {
  const Viewport& vp = f.viewport;
  p.save();
  p.setClipRect(QRect(0, vp.rows_top(), vp.width, vp.rows_bottom() - vp.rows_top()));
  // Grid lines at the ruler's ticks help read times across lanes.
  p.setPen(kGridLine);
  for (const Tick& t : f.ticks) p.drawLine(QPointF(t.x, vp.rows_top()), QPointF(t.x, vp.rows_bottom()));
  const QFont base = font();
  QFont bold = base;
  bold.setBold(true);
  QFont small = base;
  small.setPointSizeF(base.pointSizeF() * 0.9);
  for (size_t i = 0; i < f.rows.size(); ++i) {
    const Row& row = f.rows[i];
    const Lane& lane = model_->lanes()[row.lane];
    if (i % 2) p.fillRect(QRect(vp.content_left(), row.rect.top(), vp.width, row.rect.height()), kAltRow);
    p.fillRect(QRect(0, row.rect.top(), kLaneHeaderWidth, row.rect.height()), kHeaderBackground);
    p.setPen(kGridLine);
    p.drawLine(row.rect.bottomLeft(), QPoint(vp.width, row.rect.bottom()));
    // A colour tab says what the lane mostly carries.
    p.fillRect(QRect(4, row.rect.top() + 4, 4, row.rect.height() - 8),
               lane.type == LaneType::kNvtx ? category_color(OpCategory::kNvtx) : category_color(lane.usual));
    p.setFont(lane.type == LaneType::kNvtx ? small : base);
    p.setPen(lane.type == LaneType::kNvtx ? kMutedText : kText);
    const int indent = lane.type == LaneType::kNvtx ? 14 + 8 * static_cast<int>(lane.depth) : 14;
    const QRect text_rect(indent, row.rect.top(), kLaneHeaderWidth - indent - 4, row.rect.height());
    p.drawText(text_rect, Qt::AlignVCenter | Qt::AlignLeft,
               p.fontMetrics().elidedText(lane.label, Qt::ElideRight, text_rect.width()));
  }
  p.setFont(bold);
  for (const GroupRow& g : f.groups) {
    p.fillRect(g.rect, kGroupBackground);
    p.setPen(kText);
    p.drawText(g.rect.adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft,
               model_->groups()[g.group].label);
  }
  p.setPen(QColor(0xc8, 0xce, 0xd6));
  p.drawLine(QPointF(vp.content_left() - 0.5, vp.rows_top()),
             QPointF(vp.content_left() - 0.5, vp.rows_bottom()));
  p.restore();
}

void TimelineWidget::paintBoxes(QPainter& p, const Frame& f) const {
  // One fill call per colour: state changes dominate the cost of drawing.
  QHash<QRgb, QVector<QRectF>> fills, outlined;
  struct Label {
    QRectF rect;
    QString text;
    bool on_dark;
  };
  std::vector<Label> labels;
  for (size_t r = 0; r < f.rows.size(); ++r) {
    const Row& row = f.rows[r];
    const Lane& lane = model_->lanes()[row.lane];
    const bool nvtx = lane.type == LaneType::kNvtx;
    const double top = row.rect.top() + (nvtx ? 1 : 3), bottom = row.rect.bottom() - (nvtx ? 0 : 2);
    for (const Box& b : f.boxes[r]) {
      QColor color = nvtx && !b.merged() ? nvtx_color(b.name) : category_color(b.category);
      if (b.merged()) color = merged_color(color);
      const QRectF rect(QPointF(b.x0, top), QPointF(b.x1, bottom));
      (rect.width() >= 6 && !b.merged() ? outlined : fills)[color.rgb()].push_back(rect);
      if (!b.merged() && rect.width() >= kLabelMinPx)
        labels.push_back({rect, model_->label({row.lane, b.first}), !nvtx && dark(color)});
    }
  }
  p.setPen(Qt::NoPen);
  for (auto it = fills.cbegin(); it != fills.cend(); ++it) {
    p.setBrush(QColor::fromRgb(it.key()));
    p.drawRects(it.value());
  }
  for (auto it = outlined.cbegin(); it != outlined.cend(); ++it) {
    const QColor c = QColor::fromRgb(it.key());
    p.setBrush(c);
    p.setPen(QPen(c.darker(135), 1));
    p.drawRects(it.value());
  }
  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.9);
  p.setFont(small);
  const QFontMetrics fm(small);
  for (const Label& l : labels) {
    const QRectF inner = l.rect.adjusted(3, 0, -3, 0)
                             .intersected(QRectF(QPointF(f.viewport.content_left(), l.rect.top()),
                                                 QPointF(f.viewport.width, l.rect.bottom())));
    if (inner.width() < kLabelMinPx - 6) continue;
    const QString text = fm.elidedText(l.text, Qt::ElideRight, static_cast<int>(inner.width()));
    if (text.isEmpty() || text == QStringLiteral("\u2026")) continue;
    p.setPen(l.on_dark ? Qt::white : kText);
    p.drawText(inner, Qt::AlignVCenter | Qt::AlignLeft, text);
  }
}

void TimelineWidget::paintHazards(QPainter& p, const Frame& f) const {
  const QColor red = QColor::fromRgb(kHazardRgb);
  QColor fill = red;
  fill.setAlpha(45);
  for (const HazardMarker& m : f.hazards) {
    const bool selected = highlight_.hazard == m.instance;
    p.setPen(QPen(red, selected ? 3 : 2));
    p.setBrush(fill);
    p.drawRect(m.rect);
    // A flag above the box: visible even where boxes merge into one.
    const double cx = m.rect.center().x(), top = m.rect.top();
    QPainterPath flag;
    flag.moveTo(cx - 5, top);
    flag.lineTo(cx + 5, top);
    flag.lineTo(cx, top + 6);
    flag.closeSubpath();
    p.setPen(Qt::NoPen);
    p.setBrush(red);
    p.drawPath(flag);
  }
}

void TimelineWidget::paintArrows(QPainter& p, const Frame& f) const {
  p.setRenderHint(QPainter::Antialiasing, true);
  for (const Arrow& a : f.arrows) {
    QColor color;
    double width = 1.2;
    Qt::PenStyle style = Qt::SolidLine;
    switch (a.kind) {
      case ArrowKind::kDependency:
        color = QColor::fromRgb(kDependencyRgb);
        color.setAlpha(110);
        break;
      case ArrowKind::kSelectedDependency:
        color = QColor::fromRgb(kDependencyRgb);
        width = 1.8;
        break;
      case ArrowKind::kChain:
        color = QColor::fromRgb(kChainRgb);
        width = 2.5;
        break;
      case ArrowKind::kHazardPair:
        color = QColor::fromRgb(kHazardRgb);
        width = 2;
        style = Qt::DashLine;
        break;
    }
    p.setPen(QPen(color, width, style, Qt::RoundCap));
    p.setBrush(Qt::NoBrush);
    QPainterPath path(a.from);
    const double dx = std::max(20.0, std::abs(a.to.x() - a.from.x()) / 3);
    path.cubicTo(a.from + QPointF(dx, 0), a.to - QPointF(dx, 0), a.to);
    p.drawPath(path);
    if (a.kind == ArrowKind::kHazardPair) continue;
    // Arrowhead pointing along the curve's end (horizontal).
    QPainterPath head;
    head.moveTo(a.to);
    head.lineTo(a.to + QPointF(-7, -4));
    head.lineTo(a.to + QPointF(-7, 4));
    head.closeSubpath();
    p.setPen(Qt::NoPen);
    p.setBrush(color);
    p.drawPath(head);
  }
  p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineWidget::paintSelection(QPainter& p, const Frame& f) const {
  p.setBrush(Qt::NoBrush);
  if (highlight_.secondary)
    if (auto r = f.op_rect(*model_, *highlight_.secondary)) {
      p.setPen(QPen(QColor::fromRgb(kSelectionRgb), 2, Qt::DashLine));
      p.drawRect(r->adjusted(-2, -2, 2, 2));
    }
  if (highlight_.primary)
    if (auto r = f.op_rect(*model_, *highlight_.primary)) {
      p.setPen(QPen(QColor::fromRgb(kSelectionRgb), 2));
      p.drawRect(r->adjusted(-2, -2, 2, 2));
    }
}

void TimelineWidget::setDivergence(std::optional<DivergenceMarker> marker) {
  divergence_ = std::move(marker);
  update();
}

std::optional<double> TimelineWidget::divergenceX() const {
  if (!divergence_ || !model_) return std::nullopt;
  // Op times are relative to the header's origin; the values record's are absolute.
  const double t = static_cast<double>(divergence_->time_ns - model_->tables().header().time_origin_ns());
  const Viewport vp = viewport();  // not frame(): painting calls this, and a frame lays out every lane
  const double x = vp.x_of(t);
  if (x < vp.content_left() || x > vp.width) return std::nullopt;
  return x;
}

void TimelineWidget::paintDivergence(QPainter& p, const Frame& f) const {
  const std::optional<double> x = divergenceX();
  if (!x) return;
  const QColor colour = QColor::fromRgb(kDivergenceRgb);
  p.setPen(QPen(colour, 2));
  p.drawLine(QPointF(*x, f.viewport.rows_top()), QPointF(*x, f.viewport.rows_bottom()));
  const QRectF box(*x + 4, f.viewport.rows_top() + 2, 520, 18);
  p.fillRect(QRectF(box.topLeft(), QSizeF(p.fontMetrics().horizontalAdvance(divergence_->label) + 8, 18)),
             QColor(255, 255, 255, 220));
  p.setPen(colour);
  p.drawText(box.adjusted(4, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, divergence_->label);
}

void TimelineWidget::paintRuler(QPainter& p, const Frame& f) const {
  const Viewport& vp = f.viewport;
  p.fillRect(QRect(0, 0, width(), kRulerHeight), kHeaderBackground);
  p.setPen(QColor(0xc8, 0xce, 0xd6));
  p.drawLine(0, kRulerHeight - 1, width(), kRulerHeight - 1);
  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.9);
  p.setFont(small);
  p.save();
  p.setClipRect(QRectF(vp.content_left(), 0, vp.content_width(), kRulerHeight));
  for (const Tick& t : f.ticks) {
    p.setPen(kMutedText);
    p.drawLine(QPointF(t.x, kRulerHeight - 9), QPointF(t.x, kRulerHeight - 1));
    p.setPen(kText);
    p.drawText(QRectF(t.x + 3, 2, 120, kRulerHeight - 12), Qt::AlignLeft | Qt::AlignVCenter, t.label);
  }
  // Every listed hazard as a red tick: where they are, at any zoom.
  p.setPen(QPen(QColor::fromRgb(kHazardRgb), 2));
  for (double x : f.hazard_ticks) p.drawLine(QPointF(x, kRulerHeight - 6), QPointF(x, kRulerHeight - 1));
  p.restore();
  p.setPen(kMutedText);
  const QString corner = f.tick_base.isEmpty() ? tr("view %1").arg(format_duration(vp.t1 - vp.t0))
                                               : tr("from %1").arg(f.tick_base);
  p.drawText(QRect(8, 0, kLaneHeaderWidth - 12, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft, corner);
}

void TimelineWidget::paintLegend(QPainter& p) const {
  const int top = height() - kLegendHeight;
  p.fillRect(QRect(0, top, width(), kLegendHeight), kHeaderBackground);
  p.setPen(QColor(0xc8, 0xce, 0xd6));
  p.drawLine(0, top, width(), top);
  QFont small = font();
  small.setPointSizeF(font().pointSizeF() * 0.9);
  p.setFont(small);
  const QFontMetrics fm(small);
  int x = 8;
  auto item = [&](const QColor& color, const QString& text, bool hazard = false) {
    const int w = 12 + 4 + fm.horizontalAdvance(text) + 14;
    if (x + w > width()) return;
    const QRect swatch(x, top + 6, 12, 10);
    if (hazard) {
      p.setPen(QPen(color, 2));
      QColor fill = color;
      fill.setAlpha(70);
      p.setBrush(fill);
    } else {
      p.setPen(Qt::NoPen);
      p.setBrush(color);
    }
    p.drawRect(swatch);
    p.setPen(kText);
    p.drawText(QRect(x + 16, top, w, kLegendHeight), Qt::AlignVCenter | Qt::AlignLeft, text);
    x += w;
  };
  item(QColor::fromRgb(kHazardRgb), tr("hazard"), true);
  for (int c = 0; c < kCategoryCount; ++c)
    if (present_.test(static_cast<size_t>(c)))
      item(category_color(static_cast<OpCategory>(c)), category_name(static_cast<OpCategory>(c)));
  item(merged_color(category_color(OpCategory::kKernel)), tr("merged (zoom in)"));
}

// ---- interaction

double TimelineWidget::cursorXOrCentre() const {
  const QPointF pos = mapFromGlobal(QCursor::pos());
  const Viewport vp = viewport();
  if (rect().contains(pos.toPoint()) && pos.x() > vp.content_left()) return pos.x();
  return vp.content_left() + vp.content_width() / 2;
}

void TimelineWidget::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  updateScrollBar();
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
  if (!model_) return;
  const QPoint delta = event->angleDelta();
  if (event->modifiers() & Qt::ShiftModifier) {
    scrollRows(-(delta.y() ? delta.y() : delta.x()) / 3);
  } else if (std::abs(delta.x()) > std::abs(delta.y())) {
    panByPixels(-delta.x() / 2.0);
  } else if (delta.y()) {
    zoomAround(std::pow(kWheelZoomPerNotch, delta.y() / 120.0), event->position().x());
  }
  event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) {
  setFocus(Qt::MouseFocusReason);
  if (!model_ || event->button() != Qt::LeftButton) return;
  pressed_ = true;
  dragging_ = false;
  press_pos_ = event->position();
  drag_t0_ = t0_;
  drag_t1_ = t1_;
  drag_scroll_ = scroll_y_;
  const Hit hit = hit_test(frame(), *model_, press_pos_);
  dragged_lane_.reset();
  if (hit.type == Hit::Type::kLaneHeader) dragged_lane_ = hit.lane;
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
  if (!pressed_) return;
  const QPointF d = event->position() - press_pos_;
  if (!dragging_ && std::hypot(d.x(), d.y()) < kDragThreshold) return;
  dragging_ = true;
  if (dragged_lane_) {
    setCursor(Qt::ClosedHandCursor);
    return;
  }
  setCursor(Qt::ClosedHandCursor);
  const double dt = -d.x() * viewport().ns_per_px();
  setView(drag_t0_ + dt, drag_t1_ + dt);
  scrollRows(drag_scroll_ - static_cast<int>(d.y()) - scroll_y_);
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
  if (!pressed_ || event->button() != Qt::LeftButton) return;
  pressed_ = false;
  unsetCursor();
  const Frame f = frame();
  if (dragging_) {
    if (dragged_lane_) {
      // Drop the lane where the pointer is.
      const Hit target = hit_test(f, *model_, QPointF(10, event->position().y()));
      if (target.type == Hit::Type::kLaneHeader || target.type == Hit::Type::kOp) {
        auto& lanes = order_.lanes;
        auto it = std::find(lanes.begin(), lanes.end(), target.lane);
        if (it != lanes.end()) moveLaneTo(*dragged_lane_, static_cast<size_t>(it - lanes.begin()));
      }
    }
    dragging_ = false;
    return;
  }
  const Hit hit = hit_test(f, *model_, event->position());
  const bool second = event->modifiers() & (Qt::ControlModifier | Qt::ShiftModifier);
  switch (hit.type) {
    case Hit::Type::kHazard: emit hazardClicked(hit.instance); break;
    case Hit::Type::kOp:
      if (second && highlight_.primary)
        setSecondary(hit.op);
      else
        selectOp(hit.op);
      break;
    case Hit::Type::kNone: selectOp(std::nullopt); break;
    default: break;
  }
}

void TimelineWidget::mouseDoubleClickEvent(QMouseEvent* event) {
  if (!model_) return;
  const Hit hit = hit_test(frame(), *model_, event->position());
  if (hit.type == Hit::Type::kOp)
    zoomToRange(static_cast<double>(model_->start(hit.op)), static_cast<double>(model_->end(hit.op)));
}

void TimelineWidget::keyPressEvent(QKeyEvent* event) {
  if (!model_) return QWidget::keyPressEvent(event);
  const double pan = viewport().content_width() * kKeyPanFraction;
  switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
    case Qt::Key_W: zoomAround(kKeyZoom, cursorXOrCentre()); break;
    case Qt::Key_Minus:
    case Qt::Key_S: zoomAround(1 / kKeyZoom, cursorXOrCentre()); break;
    case Qt::Key_Left:
    case Qt::Key_A: panByPixels(-pan); break;
    case Qt::Key_Right:
    case Qt::Key_D: panByPixels(pan); break;
    case Qt::Key_Up: scrollRows(-kLaneHeight); break;
    case Qt::Key_Down: scrollRows(kLaneHeight); break;
    case Qt::Key_PageUp: scrollRows(-(viewport().rows_bottom() - viewport().rows_top())); break;
    case Qt::Key_PageDown: scrollRows(viewport().rows_bottom() - viewport().rows_top()); break;
    case Qt::Key_F:
    case Qt::Key_Home: zoomToFit(); break;
    case Qt::Key_Z: zoomToSelection(); break;
    case Qt::Key_Escape:
      selectOp(std::nullopt);
      setSecondary(std::nullopt);
      break;
    default: QWidget::keyPressEvent(event); return;
  }
  event->accept();
}

void TimelineWidget::contextMenuEvent(QContextMenuEvent* event) {
  if (!model_) return;
  const Hit hit = hit_test(frame(), *model_, event->pos());
  QMenu menu(this);
  if (hit.type == Hit::Type::kLaneHeader || hit.type == Hit::Type::kOp) {
    const uint32_t lane = hit.lane;
    menu.addSection(model_->lanes()[lane].label);
    menu.addAction(tr("Move lane up"), this, [this, lane] { moveLane(lane, -1); });
    menu.addAction(tr("Move lane down"), this, [this, lane] { moveLane(lane, 1); });
    menu.addAction(tr("Hide lane"), this, [this, lane] { hideLane(lane); });
  }
  QAction* all = menu.addAction(tr("Show all lanes (%1 hidden)").arg(hiddenLaneCount()), this,
                                [this] { showAllLanes(); });
  all->setEnabled(hiddenLaneCount() > 0);
  menu.addSeparator();
  menu.addAction(tr("Zoom to fit"), this, [this] { zoomToFit(); });
  menu.exec(event->globalPos());
}

QString TimelineWidget::toolTipAt(QPointF pos) const {
  const Frame f = frame();
  const Hit hit = hit_test(f, *model_, pos);
  if (hit.type == Hit::Type::kHazard && hazards_) {
    const race::Hazard& h = hazards_->instances()[hit.instance].hazard;
    return tr("Hazard %1 %2 (%3): #%4 and #%5\n%6")
        .arg(QString::fromLatin1(race::kind_name(h.kind).data()),
             QString::fromLatin1(race::class_name(h.cls).data()),
             QString::fromLatin1(race::confidence_name(h.confidence).data()))
        .arg(h.first.seq)
        .arg(h.second.seq)
        .arg(hazards_->streams(h));
  }
  if (hit.type != Hit::Type::kOp) return {};
  const Lane& lane = model_->lanes()[hit.op.lane];
  const double duration = static_cast<double>(model_->end(hit.op) - model_->start(hit.op));
  return tr("#%1 %2\n%3, %4")
      .arg(model_->seq(hit.op))
      .arg(lane.type == LaneType::kNvtx
               ? model_->label(hit.op)
               : model_->search_text(model_->category(hit.op), lane.name[hit.op.index]))
      .arg(category_name(model_->category(hit.op)), format_duration(duration));
}

bool TimelineWidget::event(QEvent* event) {
  switch (event->type()) {
    case QEvent::ToolTip: {
      if (!model_) break;
      auto* help = static_cast<QHelpEvent*>(event);
      const QString text = toolTipAt(help->pos());
      if (text.isEmpty())
        QToolTip::hideText();
      else
        QToolTip::showText(help->globalPos(), text, this);
      return true;
    }
    case QEvent::NativeGesture: {
      auto* gesture = static_cast<QNativeGestureEvent*>(event);
      if (gesture->gestureType() == Qt::ZoomNativeGesture) {
        zoomAround(1.0 + gesture->value(), gesture->position().x());
        return true;
      }
      break;
    }
    case QEvent::Gesture: {
      auto* gestures = static_cast<QGestureEvent*>(event);
      if (auto* pinch = static_cast<QPinchGesture*>(gestures->gesture(Qt::PinchGesture))) {
        const QPointF at = mapFromGlobal(pinch->centerPoint());
        zoomAround(pinch->scaleFactor(), at.x());
        gestures->accept(pinch);
        return true;
      }
      break;
    }
    default: break;
  }
  return QWidget::event(event);
}

}  // namespace racetrack::viewer
