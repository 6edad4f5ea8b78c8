// The ranks of a run side by side (RanksWindow, docs/distributed.md): a
// timeline per rank headed by its rank and host, each with its own hazards,
// views that move together on the shared clock, and the screenshot.
#include <QImage>
#include <QProcess>
#include <QTest>

#include "ranks_window.h"
#include "timeline_widget.h"
#include "trace_model.h"
#include "viewer_test_support.h"

namespace racetrack::viewer_test {
namespace {

using viewer::RanksWindow;

class RanksTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    dir_ = temp_dir(QStringLiteral("ranks"));
    QProcess synth;
    synth.start(QStringLiteral(RACETRACK_CLI),
                {QStringLiteral("synth"), QStringLiteral("-o"), dir_ + QStringLiteral("/rank-%r.rtrace"),
                 QStringLiteral("--ranks"), QStringLiteral("3"), QStringLiteral("--ops"),
                 QStringLiteral("6000"), QStringLiteral("--inject"), QStringLiteral("C12_bucket")});
    QVERIFY(synth.waitForFinished(60000));
    QCOMPARE(synth.exitCode(), 0);
    for (int r = 0; r < 3; ++r) paths_ << dir_ + QStringLiteral("/rank-%1.rtrace").arg(r);
  }

  void aTimelinePerRankWithItsHeaderAndHazards() {
    RanksWindow w(paths_);
    w.resize(1400, 1200);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY2(w.openAndWait(), qPrintable(w.lastError()));
    QCOMPARE(w.rankCount(), size_t{3});
    for (size_t i = 0; i < 3; ++i) {
      QVERIFY2(w.header(i).startsWith(QStringLiteral("rank %1 on synth-node0").arg(i)),
               qPrintable(w.header(i)));
      QVERIFY(w.timeline(i)->model() && w.timeline(i)->model()->op_count() > 1000);
      QCOMPARE(w.offsetNs(i), int64_t{0});  // synth ranks share their time origin
    }
    // C12_bucket went to rank 0 only.
    QVERIFY(w.hazards(0)->result().shown_groups() > 0);
    QCOMPARE(w.hazards(1)->result().shown_groups(), uint64_t{0});

    // Zooming one rank moves the others to the same window of time.
    w.timeline(1)->zoomAround(4.0, 700);
    const double t0 = w.timeline(1)->viewStart(), t1 = w.timeline(1)->viewEnd();
    for (size_t i : {0u, 2u}) {
      QCOMPARE(w.timeline(i)->viewStart(), t0);
      QCOMPARE(w.timeline(i)->viewEnd(), t1);
    }
  }

  void aDirectoryShowsSideBySideInAScreenshot() {
    const QString out = dir_ + QStringLiteral("/ranks.png");
    QProcess viewer;
    viewer.setProcessChannelMode(QProcess::MergedChannels);
    viewer.start(QStringLiteral(RACETRACK_VIEWER), {dir_, QStringLiteral("--screenshot"), out,
                                                    QStringLiteral("--size"), QStringLiteral("1200x900")});
    QVERIFY(viewer.waitForFinished(120000));
    const QString said = QString::fromLocal8Bit(viewer.readAll());
    QVERIFY2(viewer.exitCode() == 0, qPrintable(said));
    QVERIFY2(said.contains(QStringLiteral("3 ranks")), qPrintable(said));
    const QImage image(out);
    QCOMPARE(image.size(), QSize(1200, 900));
    // One trace with --select-hazard is a single window's option.
    viewer.start(QStringLiteral(RACETRACK_VIEWER),
                 {dir_, QStringLiteral("--select-hazard"), QStringLiteral("1"),
                  QStringLiteral("--screenshot"), dir_ + QStringLiteral("/x.png")});
    QVERIFY(viewer.waitForFinished(60000));
    QCOMPARE(viewer.exitCode(), 2);
  }

 private:
  QString dir_;
  QStringList paths_;
};

const RegisterSuite kRegister(QStringLiteral("Ranks"), [] { return std::make_unique<RanksTest>(); });

}  // namespace
}  // namespace racetrack::viewer_test

#include "ranks_test.moc"
