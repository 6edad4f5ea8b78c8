// Rendering, checked on the frame geometry and on grabbed images
// (structurally, not pixel for pixel): lanes, op boxes where their times
// put them, merging at full zoom-out, and hazard markers that survive it on
// a synth trace of a million ops.
#include <QElapsedTimer>
#include <QImage>
#include <QTest>

#include "main_window.h"
#include "viewer_test_support.h"

namespace racetrack::viewer_test {
namespace {

using viewer::Frame;
using viewer::MainWindow;

QStringList row_labels(const MainWindow& w) {
  QStringList labels;
  for (const viewer::Row& r : w.timeline()->frame().rows) labels << w.model()->lanes()[r.lane].label;
  return labels;
}

// Pixels of `image` inside `rect` whose colour is within `tolerance` of `color`.
int pixels_like(const QImage& image, const QRect& rect, QColor color, int tolerance = 12) {
  int n = 0;
  const QRect r = rect.intersected(image.rect());
  for (int y = r.top(); y <= r.bottom(); ++y)
    for (int x = r.left(); x <= r.right(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (std::abs(c.red() - color.red()) <= tolerance && std::abs(c.green() - color.green()) <= tolerance &&
          std::abs(c.blue() - color.blue()) <= tolerance)
        ++n;
    }
  return n;
}

class RenderingTest : public QObject {
  Q_OBJECT

 private slots:
  void lanesAreGroupedAndLabelled() {
    MainWindow w(MainWindow::Mode::kHeadless);
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openFileAndWait(sample_path(QStringLiteral("c1_reload_not_waited.race.pbtxt"))));
    const QStringList labels = row_labels(w);
    QVERIFY2(labels.contains(QStringLiteral("compute")), qPrintable(labels.join(", ")));
    QVERIFY(labels.contains(QStringLiteral("d2h_stream (d2h)")));
    QVERIFY(labels.contains(QStringLiteral("python main (tid 4242)")));
    QVERIFY(labels.contains(QStringLiteral("NVTX python main (tid 4242)")));
    const Frame f = w.timeline()->frame();
    QCOMPARE(f.groups.size(), size_t{2});  // GPU 0, host
    QCOMPARE(w.model()->groups()[f.groups[0].group].label, QStringLiteral("GPU 0"));
    QVERIFY(!f.ticks.empty());
    // Every lane's header carries text: dark pixels where the label is.
    const QImage image = w.timeline()->grab().toImage();
    for (const viewer::Row& r : f.rows)
      QVERIFY(pixels_like(image, QRect(14, r.rect.top() + 4, 120, r.rect.height() - 8),
                          QColor(0x1f, 0x25, 0x2b), 60) +
                  pixels_like(image, QRect(14, r.rect.top() + 4, 120, r.rect.height() - 8),
                              QColor(0x5f, 0x6b, 0x76), 40) >
              5);
    // The ruler has labelled ticks.
    QVERIFY(pixels_like(image, QRect(viewer::kLaneHeaderWidth, 2, 600, viewer::kRulerHeight - 12),
                        QColor(0x1f, 0x25, 0x2b), 60) > 10);
  }

  void opBoxesSitWhereTheirTimesPutThem() {
    MainWindow w(MainWindow::Mode::kHeadless);
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openFileAndWait(sample_path(QStringLiteral("c1_reload_not_waited.race.pbtxt"))));
    // Host times only: seq 1 is a kernel on compute, host 1500..5500 ns; seq 8
    // a kernel at 28000..32000.
    w.timeline()->setView(0, 40000);
    const Frame f = w.timeline()->frame();
    const QImage image = w.timeline()->grab().toImage();
    for (uint64_t seq : {uint64_t{1}, uint64_t{8}}) {
      const auto ref = w.model()->find(seq);
      QVERIFY(ref);
      const viewer::Row* row = f.row_of_lane(ref->lane);
      QVERIFY(row);
      const auto& boxes = f.boxes[static_cast<size_t>(row - f.rows.data())];
      const auto box = std::find_if(boxes.begin(), boxes.end(),
                                    [&](const viewer::Box& b) { return b.first == ref->index; });
      QVERIFY(box != boxes.end());
      QCOMPARE(box->count, 1u);
      const double expected_x0 = f.viewport.x_of(static_cast<double>(w.model()->start(*ref)));
      const double expected_x1 = f.viewport.x_of(static_cast<double>(w.model()->end(*ref)));
      QVERIFY(std::abs(box->x0 - expected_x0) < 0.5);
      QVERIFY(std::abs(box->x1 - expected_x1) < 0.5);
      QCOMPARE(w.model()->start(*ref), seq == 1 ? 1500 : 28000);
      // The box is painted in the kernel colour (above its label).
      const QRect inside(static_cast<int>(box->x0) + 3, row->rect.top() + 4,
                         static_cast<int>(box->x1 - box->x0) - 6, 2);
      QCOMPARE(pixels_like(image, inside, viewer::category_color(viewer::OpCategory::kKernel)),
               inside.width() * 2);
    }
    // The D2H and H2D copies have their own colours.
    for (auto [seq, category] : {std::pair{uint64_t{4}, viewer::OpCategory::kCopyD2H},
                                 std::pair{uint64_t{7}, viewer::OpCategory::kCopyH2D}}) {
      const auto ref = w.model()->find(seq);
      QVERIFY(ref);
      QCOMPARE(w.model()->category(*ref), category);
    }
    QVERIFY(viewer::category_color(viewer::OpCategory::kCopyD2H) !=
            viewer::category_color(viewer::OpCategory::kCopyH2D));
  }

  void millionOpsMergeAtFullZoomOutAndTheHazardStaysVisible() {
    const SynthTrace& synth = synth_trace_1m();
    MainWindow w(MainWindow::Mode::kHeadless);
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY2(w.openFileAndWait(synth.path), qPrintable(w.lastError()));
    QCOMPARE(w.model()->op_count(), synth.ops);
    w.timeline()->zoomToFit();
    const Frame f = w.timeline()->frame();
    // Level of detail: no row draws more boxes than it has pixels.
    size_t boxes = 0;
    for (const auto& row : f.boxes) {
      QVERIFY(row.size() <= static_cast<size_t>(f.viewport.content_width()));
      boxes += row.size();
    }
    QVERIFY(boxes < synth.ops / 10);
    // Both ops of the injected hazard are marked, at least 7 px wide.
    const auto first = w.model()->find(synth.injected.first_seq),
               second = w.model()->find(synth.injected.second_seq);
    QVERIFY(first && second);
    int marked = 0;
    for (const viewer::HazardMarker& m : f.hazards) {
      const auto& inst = w.hazards()->instances()[m.instance];
      if (inst.hazard.first.seq != synth.injected.first_seq ||
          inst.hazard.second.seq != synth.injected.second_seq)
        continue;
      QVERIFY(m.rect.width() >= viewer::kHazardMarkerMinPx - 0.01);
      ++marked;
      // Clickable: a hit test on the marker finds the hazard.
      const viewer::Hit hit = viewer::hit_test(f, *w.model(), m.rect.center());
      QCOMPARE(hit.type, viewer::Hit::Type::kHazard);
      // Painted: hazard red on the marker's outline.
      const QImage image = w.timeline()->grab().toImage();
      const QRect outline = m.rect.toAlignedRect().adjusted(-2, -8, 2, 2);
      QVERIFY2(pixels_like(image, outline, QColor::fromRgb(viewer::kHazardRgb), 20) >= 10,
               qPrintable(QStringLiteral("marker at %1,%2").arg(m.rect.x()).arg(m.rect.y())));
    }
    QCOMPARE(marked, 2);
    // The ruler's strip shows it too.
    QVERIFY(!f.hazard_ticks.empty());
    // A zoomed-out frame is cheap to compute.
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < 10; ++i) (void)w.timeline()->frame();
    QVERIFY2(timer.elapsed() < 500, qPrintable(QString::number(timer.elapsed())));
  }
};

const RegisterSuite kRegister(QStringLiteral("Rendering"), [] { return std::make_unique<RenderingTest>(); });

}  // namespace
}  // namespace racetrack::viewer_test

#include "rendering_test.moc"
