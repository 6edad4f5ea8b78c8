// Keyboard, mouse, wheel and pinch through QTest events; lanes reordered and
// hidden; search; hazard keys; the happens-before chain; the memory view;
// export; drag and drop; and bad files, which must give a message box.
#include <QDropEvent>
#include <QFile>
#include <QMessageBox>
#include <QMimeData>
#include <QNativeGestureEvent>
#include <QPointingDevice>
#include <QTest>
#include <QWheelEvent>

#include "main_window.h"
#include "viewer_test_support.h"

namespace racetrack::viewer_test {
namespace {

using viewer::MainWindow;
using viewer::TimelineWidget;

const QString kC1 = QStringLiteral("c1_reload_not_waited.race.pbtxt");

double span(const TimelineWidget& t) {
  return t.viewEnd() - t.viewStart();
}

QPoint centre_of(const MainWindow& w, uint64_t seq) {
  const auto ref = w.model()->find(seq);
  const auto rect = w.timeline()->frame().op_rect(*w.model(), *ref);
  return rect ? rect->center().toPoint() : QPoint();
}

class InteractionTest : public QObject {
  Q_OBJECT

  std::unique_ptr<MainWindow> open(const QString& sample,
                                   MainWindow::Mode mode = MainWindow::Mode::kHeadless) {
    auto w = std::make_unique<MainWindow>(mode);
    w->resize(1400, 900);
    w->show();
    if (!QTest::qWaitForWindowExposed(w.get())) return nullptr;
    if (!w->openFileAndWait(sample_path(sample))) return nullptr;
    return w;
  }

 private slots:
  void wheelZoomsAroundTheCursor() {
    auto w = open(kC1);
    QVERIFY(w);
    TimelineWidget* t = w->timeline();
    const QPointF at(viewer::kLaneHeaderWidth + 300, 100);
    const double before = t->frame().viewport.time_at(at.x()), span_before = span(*t);
    QWheelEvent in(at, t->mapToGlobal(at), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                   Qt::NoScrollPhase, false);
    QApplication::sendEvent(t, &in);
    QVERIFY(span(*t) < span_before / 1.4);
    QVERIFY(std::abs(t->frame().viewport.time_at(at.x()) - before) < span_before * 1e-6);
    QWheelEvent out(at, t->mapToGlobal(at), QPoint(), QPoint(0, -240), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
    QApplication::sendEvent(t, &out);
    QVERIFY(std::abs(span(*t) - span_before) < span_before * 1e-6);
  }

  void pinchZooms() {
    auto w = open(kC1);
    QVERIFY(w);
    TimelineWidget* t = w->timeline();
    const double span_before = span(*t);
    const QPointF at(viewer::kLaneHeaderWidth + 200, 100);
    QNativeGestureEvent pinch(Qt::ZoomNativeGesture, QPointingDevice::primaryPointingDevice(), 2, at, at,
                              t->mapToGlobal(at), 1.0, QPointF(), 1);
    QApplication::sendEvent(t, &pinch);
    QVERIFY(std::abs(span(*t) - span_before / 2) < span_before * 1e-6);
  }

  void keysZoomPanAndFit() {
    auto w = open(kC1);
    QVERIFY(w);
    TimelineWidget* t = w->timeline();
    t->setFocus();
    const double fit = span(*t);
    QTest::keyClick(t, Qt::Key_W);
    QVERIFY(std::abs(span(*t) - fit / 1.5) < fit * 1e-6);
    QTest::keyClick(t, Qt::Key_Plus);
    QVERIFY(std::abs(span(*t) - fit / 2.25) < fit * 1e-6);
    const double start = t->viewStart(), per_px = t->frame().viewport.ns_per_px();
    QTest::keyClick(t, Qt::Key_D);
    QVERIFY(std::abs(t->viewStart() - (start + t->frame().viewport.content_width() * 0.15 * per_px)) < 1);
    QTest::keyClick(t, Qt::Key_Left);
    QVERIFY(std::abs(t->viewStart() - start) < 1);
    QTest::keyClick(t, Qt::Key_S);
    QVERIFY(std::abs(span(*t) - fit / 1.5) < fit * 1e-6);
    QTest::keyClick(t, Qt::Key_F);
    QVERIFY(std::abs(span(*t) - fit) < fit * 1e-6);
  }

  void dragPans() {
    auto w = open(kC1);
    QVERIFY(w);
    TimelineWidget* t = w->timeline();
    t->zoomAround(4, viewer::kLaneHeaderWidth + 300);
    const double start = t->viewStart(), per_px = t->frame().viewport.ns_per_px();
    const QPoint from(viewer::kLaneHeaderWidth + 400, viewer::kRulerHeight + 5);
    QTest::mousePress(t, Qt::LeftButton, Qt::NoModifier, from);
    QTest::mouseMove(t, from + QPoint(-50, 0));
    QTest::mouseMove(t, from + QPoint(-100, 0));
    QTest::mouseRelease(t, Qt::LeftButton, Qt::NoModifier, from + QPoint(-100, 0));
    QVERIFY2(std::abs(t->viewStart() - (start + 100 * per_px)) < per_px,
             qPrintable(QString::number(t->viewStart() - start)));
  }

  void clickSelectsAndCtrlClickChains() {
    auto w = open(kC1);
    QVERIFY(w);
    TimelineWidget* t = w->timeline();
    QTest::mouseClick(t, Qt::LeftButton, Qt::NoModifier, centre_of(*w, 1));
    QVERIFY(t->highlight().primary);
    QCOMPARE(w->model()->seq(*t->highlight().primary), uint64_t{1});
    QCOMPARE(w->details()->field(QStringLiteral("Op"), QStringLiteral("seq")), QStringLiteral("1"));
    QCOMPARE(w->details()->field(QStringLiteral("Op"), QStringLiteral("stream")), QStringLiteral("compute"));
    QTest::mouseClick(t, Qt::LeftButton, Qt::ControlModifier, centre_of(*w, 8));
    QVERIFY(t->highlight().secondary);
    QCOMPARE(w->model()->seq(*t->highlight().secondary), uint64_t{8});
    QTest::keyClick(w.get(), Qt::Key_H);
    w->waitForChain();
    QTRY_VERIFY(!t->highlight().chain.empty());
    QVERIFY(w->details()
                ->field(QStringLiteral("Happens-before"), QStringLiteral("ordered"))
                .startsWith(QStringLiteral("yes")));
    QVERIFY(!t->frame().arrows.empty());
    // A click on nothing clears the selection.
    QTest::mouseClick(t, Qt::LeftButton, Qt::NoModifier,
                      QPoint(t->width() - 30, t->height() - viewer::kLegendHeight - 5));
    QVERIFY(!t->highlight().primary);
  }

  void hazardKeysStepThroughTheList() {
    auto w = open(QStringLiteral("megatron_inline_reload.race.pbtxt"));
    QVERIFY(w);
    QVERIFY(!w->hazardPanel()->listedInstances().empty());
    w->timeline()->setFocus();
    QTest::keyClick(w->timeline(), Qt::Key_N);
    const auto selected = w->hazardPanel()->selectedInstance();
    QVERIFY(selected);
    QCOMPARE(w->timeline()->highlight().hazard, selected);
    QCOMPARE(w->details()->field(QStringLiteral("Hazard"), QStringLiteral("kind")), QStringLiteral("RAW"));
    QTest::keyClick(w->timeline(), Qt::Key_P);
    QVERIFY(w->hazardPanel()->selectedInstance());
    // Clicking the marker selects the hazard too.
    w->timeline()->selectOp(std::nullopt);
    const auto markers = w->timeline()->frame().hazards;
    QVERIFY(!markers.empty());
    QTest::mouseClick(w->timeline(), Qt::LeftButton, Qt::NoModifier, markers.front().rect.center().toPoint());
    QCOMPARE(w->timeline()->highlight().hazard, std::optional<uint32_t>(markers.front().instance));
  }

  void lanesReorderAndHide() {
    auto w = open(kC1);
    QVERIFY(w);
    TimelineWidget* t = w->timeline();
    const auto order = t->laneOrder().lanes;
    QVERIFY(order.size() >= 3);
    // Drag the first lane's header onto the second's.
    const auto rows = t->frame().rows;
    const QPoint from(40, rows[0].rect.center().y()), to(40, rows[1].rect.center().y());
    QTest::mousePress(t, Qt::LeftButton, Qt::NoModifier, from);
    QTest::mouseMove(t, from + QPoint(0, 6));
    QTest::mouseMove(t, to);
    QTest::mouseRelease(t, Qt::LeftButton, Qt::NoModifier, to);
    QCOMPARE(t->laneOrder().lanes[0], order[1]);
    QCOMPARE(t->laneOrder().lanes[1], order[0]);
    t->hideLane(order[0]);
    QVERIFY(!t->frame().row_of_lane(order[0]));
    QCOMPARE(t->hiddenLaneCount(), 1);
    t->showAllLanes();
    QVERIFY(t->frame().row_of_lane(order[0]));
    t->moveLane(order[0], 1);
    QCOMPARE(t->hiddenLaneCount(), 0);
  }

  void searchFindsNextAndPrevious() {
    auto w = open(kC1);
    QVERIFY(w);
    w->search(QStringLiteral("layer_(fwd|bwd)"), true);
    QCOMPARE(w->model()->seq(*w->timeline()->highlight().primary), uint64_t{1});
    w->search(QStringLiteral("layer_(fwd|bwd)"), true);
    QCOMPARE(w->model()->seq(*w->timeline()->highlight().primary), uint64_t{8});
    w->search(QStringLiteral("layer_(fwd|bwd)"), true);  // wraps
    QCOMPARE(w->model()->seq(*w->timeline()->highlight().primary), uint64_t{1});
    w->search(QStringLiteral("layer_(fwd|bwd)"), false);
    QCOMPARE(w->model()->seq(*w->timeline()->highlight().primary), uint64_t{8});
    viewer::OpSearch copies(*w->model(), QStringLiteral("^memcpy"));
    QCOMPARE(copies.count(), uint64_t{2});
    QVERIFY(!viewer::OpSearch(*w->model(), QStringLiteral("(")).valid());
  }

  void memoryViewShowsWhoTouchedTheOverlap() {
    auto w = open(kC1);
    QVERIFY(w);
    const auto& h = w->hazards()->instances().front().hazard;
    w->memoryView()->showRange({h.space, h.lo, h.hi, QStringLiteral("P")});
    w->memoryView()->waitForScan();
    QTRY_VERIFY(!w->memoryView()->touches().empty());
    std::set<uint64_t> seqs;
    for (const auto& t : w->memoryView()->touches()) seqs.insert(t.seq);
    QVERIFY(seqs.count(4) && seqs.count(7));
    bool wrote = false, read = false;
    for (const auto& t : w->memoryView()->touches()) {
      wrote |= t.seq == 4 && t.writes;
      read |= t.seq == 7 && t.reads && !t.writes;
    }
    QVERIFY(wrote && read);
  }

  void exportsThePng() {
    auto w = open(kC1);
    QVERIFY(w);
    const QString path = temp_dir(QStringLiteral("export")) + QStringLiteral("/view.png");
    QVERIFY(w->exportPng(path));
    const QImage image(path);
    QCOMPARE(image.size(), w->timeline()->size());
  }

  void dropOpensTheFile() {
    auto w = open(kC1);
    QVERIFY(w);
    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(sample_path(QStringLiteral("c5_consumer_never_waits.race.pbtxt")))});
    QDragEnterEvent enter(QPoint(300, 300), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(w.get(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(300, 300), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(w.get(), &drop);
    QTRY_VERIFY_WITH_TIMEOUT(
        w->model() && QString::fromStdString(w->model()->path())
                          .endsWith(QStringLiteral("c5_consumer_never_waits.race.pbtxt")),
        10000);
    QTRY_VERIFY_WITH_TIMEOUT(w->hazards() != nullptr, 10000);
    delete mime;
  }

  void aNewerFileStopsTheLoadInProgress() {
    MainWindow w(MainWindow::Mode::kHeadless);
    w.openFile(synth_trace_1m().path);
    QTest::qWait(50);  // let it get going
    QVERIFY(w.openFileAndWait(sample_path(kC1)));
    QTest::qWait(200);  // nothing of the first load arrives late
    QVERIFY(QString::fromStdString(w.model()->path()).endsWith(kC1));
    QVERIFY(w.hazards());
    QCOMPARE(w.hazards()->instances().size(), size_t{1});
  }

  void badFilesGiveAMessageBox() {
    const QString dir = temp_dir(QStringLiteral("bad"));
    QFile garbage(dir + QStringLiteral("/garbage.rtrace"));
    QVERIFY(garbage.open(QIODevice::WriteOnly));
    garbage.write("this is not a trace\n");
    garbage.close();
    QFile truncated(dir + QStringLiteral("/truncated.rtrace"));
    QFile whole(synth_trace_1m().path);
    QVERIFY(whole.open(QIODevice::ReadOnly) && truncated.open(QIODevice::WriteOnly));
    truncated.write(whole.read(5000));
    truncated.close();
    QFile bad_text(dir + QStringLiteral("/bad.pbtxt"));
    QVERIFY(bad_text.open(QIODevice::WriteOnly));
    bad_text.write("header { format_version: 1 }\nops { seq: oops }\n");
    bad_text.close();
    for (const QString& path :
         {dir + QStringLiteral("/garbage.rtrace"), dir + QStringLiteral("/truncated.rtrace"),
          dir + QStringLiteral("/bad.pbtxt"), dir + QStringLiteral("/missing.rtrace"), dir}) {
      MainWindow w(MainWindow::Mode::kInteractive);
      w.show();
      QVERIFY(!w.openFileAndWait(path));
      QVERIFY2(w.lastError().contains(path), qPrintable(w.lastError()));
      QMessageBox* box = nullptr;
      QTRY_VERIFY((box = w.findChild<QMessageBox*>()) != nullptr);
      QVERIFY(box->text().contains(path));
      box->close();
      QVERIFY(!w.model() || w.model()->op_count() < 100000);
    }
  }
};

const RegisterSuite kRegister(QStringLiteral("Interaction"),
                              [] { return std::make_unique<InteractionTest>(); });

}  // namespace
}  // namespace racetrack::viewer_test

#include "interaction_test.moc"
