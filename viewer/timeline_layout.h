// The geometry of one timeline frame, computed without a widget so that it
// can be tested: lane rows, the ruler's ticks, op boxes after level-of-detail
// merging, hazard markers and arrows. The widget paints a Frame as it is.
//
// Level of detail (Tracy's fold): per visible lane, binary search finds the
// first box in the window; a box narrower than kMinBoxPx starts a run that
// swallows every box starting within kFoldGapPx of the run's end, found with
// one lower_bound per step, so a frame costs O(pixels x log n) per lane
// whatever the zoom. Hazards are not boxes: they are an overlay built from
// the hazard list, never merged away.
#pragma once

#include <QPointF>
#include <QRect>
#include <QRectF>
#include <QString>
#include <optional>
#include <vector>

#include "hazard_model.h"
#include "trace_model.h"

namespace racetrack::viewer {

inline constexpr int kLaneHeaderWidth = 210;
inline constexpr int kRulerHeight = 30;
inline constexpr int kLegendHeight = 22;
inline constexpr int kGroupHeight = 20;
inline constexpr int kLaneHeight = 24;
inline constexpr int kNvtxLaneHeight = 17;
inline constexpr double kMinBoxPx = 2.0;
inline constexpr double kFoldGapPx = 1.0;
inline constexpr double kHazardMarkerMinPx = 7.0;
inline constexpr double kMinArrowPx = 6.0;

// The visible part of the trace and the widget's size.
struct Viewport {
  double t0 = 0, t1 = 1;  // ns
  int width = 800, height = 600;
  int scroll_y = 0;  // pixels of rows scrolled off the top

  double content_left() const { return kLaneHeaderWidth; }
  double content_width() const { return std::max(1, width - kLaneHeaderWidth); }
  double ns_per_px() const { return (t1 - t0) / content_width(); }
  double x_of(double t) const { return content_left() + (t - t0) / ns_per_px(); }
  double time_at(double x) const { return t0 + (x - content_left()) * ns_per_px(); }
  int rows_top() const { return kRulerHeight; }
  int rows_bottom() const { return height - kLegendHeight; }
};

// Which lanes show, top to bottom (the user reorders and hides them).
struct LaneOrder {
  std::vector<uint32_t> lanes;
  static LaneOrder by_groups(const TraceModel& model);
};

// What is selected: drawn outlined, with its arrows.
struct Highlight {
  std::optional<OpRef> primary, secondary;
  std::optional<uint32_t> hazard;              // instance index
  std::vector<std::pair<OpRef, OpRef>> chain;  // happens-before chain edges
};

struct Row {
  uint32_t lane = 0;
  QRect rect;  // the whole row, header included
};

struct GroupRow {
  uint32_t group = 0;
  QRect rect;
};

// A drawn box: one op, or a merged run of `count` ops starting at `first`.
struct Box {
  double x0 = 0, x1 = 0;
  uint32_t first = 0, count = 1;
  OpCategory category = OpCategory::kKernel;
  uint32_t name = 0;  // the single op's name id (labels, NVTX colours)
  bool merged() const { return count > 1; }
};

struct HazardMarker {
  QRectF rect;
  uint32_t instance = 0;
  uint8_t side = 0;  // 0: first op, 1: second op
};

enum class ArrowKind : uint8_t { kDependency, kSelectedDependency, kChain, kHazardPair };

struct Arrow {
  QPointF from, to;
  ArrowKind kind = ArrowKind::kDependency;
};

struct Tick {
  double x = 0;
  QString label;
};

struct Frame {
  Viewport viewport;
  std::vector<Row> rows;                // visible rows only
  std::vector<std::vector<Box>> boxes;  // per row
  std::vector<GroupRow> groups;
  std::vector<HazardMarker> hazards;
  std::vector<Arrow> arrows;
  uint32_t thinned_arrows = 0;  // dependencies not drawn to keep the frame readable
  std::vector<Tick> ticks;
  QString tick_base;                 // set when tick labels count from it
  std::vector<double> hazard_ticks;  // x of every listed hazard, for the ruler's strip
  int content_height = 0;            // all rows, for scrolling

  const Row* row_of_lane(uint32_t lane) const;
  // The rectangle of an op's box (not merged), if its row is visible.
  std::optional<QRectF> op_rect(const TraceModel& model, OpRef ref) const;
};

struct FrameInput {
  const TraceModel* model = nullptr;
  const HazardModel* hazards = nullptr;
  const std::vector<uint8_t>* hazard_visible = nullptr;  // per instance; null: all
  const LaneOrder* order = nullptr;
  Viewport viewport;
  Highlight highlight;
};

Frame build_frame(const FrameInput& input);

// Rows top to bottom as build_frame lays them out: a group header (lane
// unset) wherever the device/host group changes, then the lane. `y` counts
// from the top of the first row, unscrolled.
struct RowSlot {
  std::optional<uint32_t> lane;  // unset: the header of `group`
  uint32_t group = 0;
  int y = 0, height = 0;
};
std::vector<RowSlot> row_slots(const TraceModel& model, const LaneOrder& order);

// What lies under a point of the frame.
struct Hit {
  enum class Type { kNone, kOp, kHazard, kLaneHeader, kRuler } type = Type::kNone;
  OpRef op;
  uint32_t instance = 0;  // kHazard
  uint8_t side = 0;
  uint32_t lane = 0;  // kOp, kLaneHeader
};

Hit hit_test(const Frame& frame, const TraceModel& model, QPointF point);

// "1.25 ms", "830 ns": durations, to three digits.
QString format_duration(double ns);
// "2.290123456 s", "12.345 \u00b5s": a point in time, to the nanosecond.
QString format_instant(double ns);

}  // namespace racetrack::viewer
