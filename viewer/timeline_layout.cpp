#include "timeline_layout.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace racetrack::viewer {
namespace {

// Drawing far outside the widget costs time and overflows float maths.
double clamp_x(const Viewport& vp, double x) {
  return std::clamp(x, vp.content_left() - 4.0, static_cast<double>(vp.width) + 4.0);
}

int64_t time_floor(double t) {
  return static_cast<int64_t>(std::clamp(std::floor(t), -9.0e18, 9.0e18));
}

int64_t time_ceil(double t) {
  return static_cast<int64_t>(std::clamp(std::ceil(t), -9.0e18, 9.0e18));
}

int lane_height(const Lane& lane) {
  return lane.type == LaneType::kNvtx ? kNvtxLaneHeight : kLaneHeight;
}

void fold_lane(const Lane& lane, const Viewport& vp, std::vector<Box>& out) {
  const size_t n = lane.size();
  size_t i = lane.first_ending_after(time_floor(vp.t0));
  const int64_t t1 = time_ceil(vp.t1);
  auto width_of = [&](size_t k) {
    return vp.x_of(static_cast<double>(lane.end[k])) - vp.x_of(static_cast<double>(lane.start[k]));
  };
  while (i < n && lane.start[i] < t1) {
    const double x0 = vp.x_of(static_cast<double>(lane.start[i]));
    double run_end = vp.x_of(static_cast<double>(lane.end[i]));
    if (run_end - x0 >= kMinBoxPx) {
      out.push_back({clamp_x(vp, x0), clamp_x(vp, run_end), static_cast<uint32_t>(i), 1, lane.category[i],
                     lane.name[i]});
      ++i;
      continue;
    }
    // A sub-pixel box: swallow everything that starts within a pixel of
    // the run's end, one binary search per step.
    size_t j = i + 1;
    for (;;) {
      const int64_t limit = time_ceil(vp.time_at(run_end + kFoldGapPx));
      const size_t k = static_cast<size_t>(
          std::lower_bound(lane.start.begin() + static_cast<ptrdiff_t>(j), lane.start.end(), limit) -
          lane.start.begin());
      if (k == j) break;
      if (width_of(k - 1) >= kMinBoxPx) {
        // A wide box ends the run and stands on its own.
        if (k - 1 > j) run_end = std::max(run_end, vp.x_of(static_cast<double>(lane.end[k - 2])));
        j = k - 1;
        break;
      }
      run_end = std::max(run_end, vp.x_of(static_cast<double>(lane.end[k - 1])));
      j = k;
    }
    const uint32_t count = static_cast<uint32_t>(j - i);
    Box box{clamp_x(vp, x0), clamp_x(vp, std::max(run_end, x0 + 1.0)),  static_cast<uint32_t>(i),
            count,           count > 1 ? lane.usual : lane.category[i], count > 1 ? 0u : lane.name[i]};
    out.push_back(box);
    i = j;
  }
}

struct TimeUnit {
  double scale;
  const char* name;
};

// The unit that reads naturally for a magnitude in ns.
TimeUnit unit_for(double ns) {
  const double a = std::abs(ns);
  if (a < 1e3) return {1, "ns"};
  if (a < 1e6) return {1e3, "\u00b5s"};
  if (a < 1e9) return {1e6, "ms"};
  return {1e9, "s"};
}

QString in_unit(double ns, TimeUnit unit, int decimals) {
  return QString::number(ns / unit.scale, 'f', decimals) + QLatin1Char(' ') + QString::fromUtf8(unit.name);
}

int decimals_for(double step, TimeUnit unit) {
  return std::max(0, static_cast<int>(std::ceil(-std::log10(step / unit.scale) - 1e-9)));
}

// Tick labels are in the unit of the view's times, with the decimals the
// step needs ("2.3025 s"); when that takes too many (deep zoom far into a
// trace) they count from the first tick, whose time the frame keeps for the
// corner of the ruler.
void add_ticks(Frame& f) {
  const Viewport& vp = f.viewport;
  const double raw = vp.ns_per_px() * 110.0;
  double step = std::pow(10.0, std::floor(std::log10(std::max(raw, 1.0))));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (step * m >= raw) {
      step *= m;
      break;
    }
  step = std::max(step, 1.0);
  const double first = std::ceil(vp.t0 / step) * step;
  const TimeUnit absolute = unit_for(std::max(std::abs(vp.t0), std::abs(vp.t1)));
  const bool relative = decimals_for(step, absolute) > 4;
  const TimeUnit unit = relative ? unit_for(step) : absolute;
  const int decimals = decimals_for(step, unit);
  if (relative) f.tick_base = format_instant(first);
  for (double t = first; t <= vp.t1 && f.ticks.size() < 200; t += step)
    f.ticks.push_back({vp.x_of(t), relative ? QStringLiteral("+") + in_unit(t - first, unit, decimals)
                                            : in_unit(t, unit, decimals)});
}

QPointF left_middle(const QRectF& r) {
  return {r.left(), r.center().y()};
}
QPointF right_middle(const QRectF& r) {
  return {r.right(), r.center().y()};
}

}  // namespace

LaneOrder LaneOrder::by_groups(const TraceModel& model) {
  LaneOrder order;
  for (const LaneGroup& g : model.groups())
    order.lanes.insert(order.lanes.end(), g.lanes.begin(), g.lanes.end());
  return order;
}

std::vector<RowSlot> row_slots(const TraceModel& model, const LaneOrder& order) {
  std::vector<RowSlot> layout;
  int y = 0;
  std::optional<uint32_t> group;
  for (uint32_t l : order.lanes) {
    const Lane& lane = model.lanes()[l];
    if (group != lane.group) {
      group = lane.group;
      layout.push_back({std::nullopt, lane.group, y, kGroupHeight});
      y += kGroupHeight;
    }
    layout.push_back({l, lane.group, y, lane_height(lane)});
    y += lane_height(lane);
  }
  return layout;
}

const Row* Frame::row_of_lane(uint32_t lane) const {
  for (const Row& r : rows)
    if (r.lane == lane) return &r;
  return nullptr;
}

std::optional<QRectF> Frame::op_rect(const TraceModel& model, OpRef ref) const {
  const Row* row = row_of_lane(ref.lane);
  if (!row) return std::nullopt;
  const double x0 = clamp_x(viewport, viewport.x_of(static_cast<double>(model.start(ref))));
  const double x1 = clamp_x(viewport, viewport.x_of(static_cast<double>(model.end(ref))));
  return QRectF(QPointF(x0, row->rect.top() + 2), QPointF(std::max(x1, x0 + 1.0), row->rect.bottom() - 1));
}

Frame build_frame(const FrameInput& in) {
  Frame f;
  f.viewport = in.viewport;
  const Viewport& vp = f.viewport;
  const TraceModel& model = *in.model;
  const auto& lanes = model.lanes();

  // The rows on screen.
  std::vector<int> row_of(lanes.size(), -1);
  for (const RowSlot& slot : row_slots(model, *in.order)) {
    const QRect r(0, vp.rows_top() - vp.scroll_y + slot.y, vp.width, slot.height);
    f.content_height = slot.y + slot.height;
    if (r.bottom() < vp.rows_top() || r.top() >= vp.rows_bottom()) continue;
    if (!slot.lane) {
      f.groups.push_back({slot.group, r});
      continue;
    }
    row_of[*slot.lane] = static_cast<int>(f.rows.size());
    f.rows.push_back({*slot.lane, r});
  }

  add_ticks(f);
  f.boxes.resize(f.rows.size());
  for (size_t r = 0; r < f.rows.size(); ++r) fold_lane(lanes[f.rows[r].lane], vp, f.boxes[r]);

  // Hazards: an overlay of markers, at least kHazardMarkerMinPx wide, one
  // per row and pixel pair so that thousands of instances stay cheap.
  if (in.hazards) {
    std::unordered_set<uint64_t> taken, ticked;
    const auto& instances = in.hazards->instances();
    for (uint32_t i = 0; i < instances.size(); ++i) {
      const bool selected = in.highlight.hazard == i;
      if (!selected && in.hazard_visible && (i >= in.hazard_visible->size() || !(*in.hazard_visible)[i]))
        continue;
      for (uint8_t side = 0; side < 2; ++side) {
        const std::optional<OpRef>& ref = side == 0 ? instances[i].first : instances[i].second;
        if (!ref) continue;
        const double s = static_cast<double>(model.start(*ref)), e = static_cast<double>(model.end(*ref));
        if (e < vp.t0 || s > vp.t1) continue;
        double x0 = vp.x_of(s), x1 = vp.x_of(e);
        if (x1 - x0 < kHazardMarkerMinPx) {
          const double c = (x0 + x1) / 2;
          x0 = c - kHazardMarkerMinPx / 2;
          x1 = c + kHazardMarkerMinPx / 2;
        }
        x0 = clamp_x(vp, x0);
        x1 = clamp_x(vp, x1);
        if (side == 0 && ticked.insert(static_cast<uint64_t>(x0 / 2)).second)
          f.hazard_ticks.push_back((x0 + x1) / 2);
        const int row = row_of[ref->lane];
        if (row < 0) continue;
        const uint64_t key = (static_cast<uint64_t>(row) << 32) | static_cast<uint32_t>(x0 / 2);
        if (!taken.insert(key).second && !selected) continue;
        const QRect& rr = f.rows[static_cast<size_t>(row)].rect;
        f.hazards.push_back({QRectF(QPointF(x0, rr.top() + 1), QPointF(x1, rr.bottom())), i, side});
      }
    }
  }

  // Arrows: the selection's first, then what is visible, thinned to one
  // per 24-pixel bucket and lane pair.
  auto rect_of = [&](OpRef ref) { return f.op_rect(model, ref); };
  auto add_arrow = [&](OpRef from, OpRef to, ArrowKind kind, bool centres) {
    auto a = rect_of(from), b = rect_of(to);
    if (!a || !b) return;
    f.arrows.push_back(centres ? Arrow{a->center(), b->center(), kind}
                               : Arrow{right_middle(*a), left_middle(*b), kind});
  };
  if (in.hazards && in.highlight.hazard && *in.highlight.hazard < in.hazards->instances().size()) {
    const HazardInstance& h = in.hazards->instances()[*in.highlight.hazard];
    if (h.first && h.second) add_arrow(*h.first, *h.second, ArrowKind::kHazardPair, true);
  }
  for (const auto& [a, b] : in.highlight.chain) add_arrow(a, b, ArrowKind::kChain, false);
  for (const std::optional<OpRef>& sel : {in.highlight.primary, in.highlight.secondary})
    if (sel)
      for (const Dependency& d : model.dependencies_of(*sel))
        add_arrow(d.record, d.wait, ArrowKind::kSelectedDependency, false);

  const auto& deps = model.dependencies();
  auto first = std::lower_bound(deps.begin(), deps.end(), vp.t0, [&](const Dependency& d, double t) {
    return static_cast<double>(model.start(d.wait)) < t;
  });
  const double last_wait = vp.t1 + static_cast<double>(model.longest_dependency_ns());
  // A crowded view keeps only arrows long enough to read: between ops a
  // few pixels apart they are clutter, and the merged runs say the rest.
  const auto window_end = std::upper_bound(first, deps.end(), vp.t1, [&](double t, const Dependency& d) {
    return t < static_cast<double>(model.start(d.wait));
  });
  const bool crowded = static_cast<double>(window_end - first) > vp.content_width() / 8;
  constexpr size_t kMaxScanned = 200000, kMaxDrawn = 3000;
  std::unordered_set<uint64_t> buckets;
  size_t scanned = 0;
  for (auto it = first; it != deps.end() && scanned < kMaxScanned; ++it, ++scanned) {
    const double wait_start = static_cast<double>(model.start(it->wait));
    if (wait_start > last_wait) break;
    const double record_end = static_cast<double>(model.end(it->record));
    // Not in view: the record ends after it, or both ends lie outside it.
    if (record_end > vp.t1 || (record_end < vp.t0 && wait_start > vp.t1)) continue;
    const int rr = row_of[it->record.lane], wr = row_of[it->wait.lane];
    if (rr < 0 || wr < 0) continue;
    if (crowded && vp.x_of(wait_start) - vp.x_of(record_end) < kMinArrowPx) {
      ++f.thinned_arrows;
      continue;
    }
    const uint64_t bucket = (static_cast<uint64_t>(vp.x_of(wait_start) / 24) << 24) |
                            (static_cast<uint64_t>(rr & 0xfff) << 12) | static_cast<uint64_t>(wr & 0xfff);
    if (!buckets.insert(bucket).second || buckets.size() > kMaxDrawn) {
      ++f.thinned_arrows;
      continue;
    }
    add_arrow(it->record, it->wait, ArrowKind::kDependency, false);
  }
  return f;
}

Hit hit_test(const Frame& f, const TraceModel& model, QPointF p) {
  Hit hit;
  const Viewport& vp = f.viewport;
  if (p.y() < vp.rows_top()) {
    hit.type = Hit::Type::kRuler;
    return hit;
  }
  // Markers win: a hazard must stay clickable however small its ops are.
  for (auto it = f.hazards.rbegin(); it != f.hazards.rend(); ++it)
    if (it->rect.adjusted(-2, -2, 2, 2).contains(p)) {
      hit.type = Hit::Type::kHazard;
      hit.instance = it->instance;
      hit.side = it->side;
      return hit;
    }
  const Row* row = nullptr;
  for (const Row& r : f.rows)
    if (r.rect.top() <= p.y() && p.y() <= r.rect.bottom()) row = &r;
  if (!row) return hit;
  hit.lane = row->lane;
  if (p.x() < vp.content_left()) {
    hit.type = Hit::Type::kLaneHeader;
    return hit;
  }
  const Lane& lane = model.lanes()[row->lane];
  const double t = vp.time_at(p.x()), tolerance = 3 * vp.ns_per_px();
  const size_t i = lane.first_ending_after(time_floor(t - tolerance));
  std::optional<size_t> best;
  double best_distance = tolerance;
  for (size_t k = i; k < lane.size() && k < i + 64 && static_cast<double>(lane.start[k]) <= t + tolerance;
       ++k) {
    const double s = static_cast<double>(lane.start[k]), e = static_cast<double>(lane.end[k]);
    const double distance = t < s ? s - t : t > e ? t - e : 0;
    if (distance <= best_distance) {
      // Inside beats near; among boxes inside, the later (smaller) one.
      best = k;
      best_distance = distance;
    }
  }
  if (!best) return hit;
  hit.type = Hit::Type::kOp;
  hit.op = {row->lane, static_cast<uint32_t>(*best)};
  return hit;
}

QString format_duration(double ns) {
  const TimeUnit unit = unit_for(ns);
  const double v = std::abs(ns / unit.scale);
  QString text = in_unit(ns, unit, v >= 100 ? 0 : v >= 10 ? 1 : 2);
  // "2.50 ms" -> "2.5 ms", "3.00 s" -> "3 s"
  const qsizetype space = text.indexOf(QLatin1Char(' '));
  if (text.left(space).contains(QLatin1Char('.'))) {
    qsizetype end = space;
    while (text[end - 1] == QLatin1Char('0')) --end;
    if (text[end - 1] == QLatin1Char('.')) --end;
    text.remove(end, space - end);
  }
  return text;
}

QString format_instant(double ns) {
  const TimeUnit unit = unit_for(ns);
  return in_unit(ns, unit, unit.scale >= 1e9 ? 9 : unit.scale >= 1e6 ? 6 : unit.scale >= 1e3 ? 3 : 0);
}

}  // namespace racetrack::viewer
