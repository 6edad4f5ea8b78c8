// The timeline: lanes grouped by device and host, op boxes merged per pixel
// column, hazard markers, dependency and happens-before arrows, a time
// ruler and a legend. Paints the Frame that build_frame computes; owns the
// view (visible time range, vertical scroll, lane order) and the selection.
#pragma once

#include <QImage>
#include <QWidget>
#include <bitset>
#include <memory>
#include <optional>

#include "divergence_marker.h"
#include "timeline_layout.h"

class QScrollBar;

namespace racetrack::viewer {

class TimelineWidget : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineWidget(QWidget* parent = nullptr);

  void setModel(std::shared_ptr<const TraceModel> model);
  void setHazards(std::shared_ptr<const HazardModel> hazards);
  // Which hazard instances the overlay shows (the hazard list's filter).
  void setHazardVisibility(std::vector<uint8_t> visible);
  const TraceModel* model() const { return model_.get(); }

  // The view.
  double viewStart() const { return t0_; }
  double viewEnd() const { return t1_; }
  void setView(double t0, double t1);
  void zoomToFit();
  // factor > 1 zooms in; the time under x stays put.
  void zoomAround(double factor, double x);
  void panByPixels(double dx);
  // Shows [t0, t1] with a margin on both sides.
  void zoomToRange(double t0, double t1);
  void zoomToSelection();
  void ensureLaneVisible(uint32_t lane);

  // The selection.
  void selectOp(std::optional<OpRef> ref);
  void setSecondary(std::optional<OpRef> ref);
  void setSelectedHazard(std::optional<uint32_t> instance);
  void setChain(std::vector<std::pair<OpRef, OpRef>> chain);
  const Highlight& highlight() const { return highlight_; }

  // The first divergence `racetrack diff` found in this run: a vertical
  // marker at its time. Its x in the current view, if there is one (tests).
  void setDivergence(std::optional<DivergenceMarker> marker);
  std::optional<double> divergenceX() const;

  // Lanes.
  const LaneOrder& laneOrder() const { return order_; }
  void moveLaneTo(uint32_t lane, size_t position);
  void moveLane(uint32_t lane, int delta);
  void hideLane(uint32_t lane);
  void showAllLanes();

  // The geometry of what is drawn now (tests assert on it).
  Frame frame() const;
  int hiddenLaneCount() const;

 signals:
  void opSelected(racetrack::viewer::OpRef ref);
  void selectionCleared();
  void secondaryOpSelected(racetrack::viewer::OpRef ref);
  void hazardClicked(uint32_t instance);
  void viewChanged(double t0, double t1);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  bool event(QEvent* event) override;

 private:
  std::optional<DivergenceMarker> divergence_;
  Viewport viewport() const;
  void updateScrollBar();
  int contentHeight() const;
  void scrollRows(int dy);
  void paintRows(QPainter& p, const Frame& f) const;
  void paintBoxes(QPainter& p, const Frame& f) const;
  void paintHazards(QPainter& p, const Frame& f) const;
  void paintArrows(QPainter& p, const Frame& f) const;
  void paintSelection(QPainter& p, const Frame& f) const;
  void paintDivergence(QPainter& p, const Frame& f) const;
  void paintRuler(QPainter& p, const Frame& f) const;
  void paintLegend(QPainter& p) const;
  QString toolTipAt(QPointF pos) const;
  double cursorXOrCentre() const;

  std::shared_ptr<const TraceModel> model_;
  std::shared_ptr<const HazardModel> hazards_;
  std::vector<uint8_t> hazard_visible_;
  LaneOrder order_;
  double t0_ = 0, t1_ = 1;
  int scroll_y_ = 0;
  Highlight highlight_;
  std::bitset<kCategoryCount> present_;  // categories the legend lists
  QScrollBar* vbar_ = nullptr;

  // Mouse state.
  QPointF press_pos_;
  bool pressed_ = false, dragging_ = false;
  std::optional<uint32_t> dragged_lane_;
  double drag_t0_ = 0, drag_t1_ = 0;
  int drag_scroll_ = 0;
};

}  // namespace racetrack::viewer
