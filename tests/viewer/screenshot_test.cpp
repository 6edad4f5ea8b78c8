// Screenshot mode run as a subprocess: `racetrack-viewer FILE --screenshot`
// and `racetrack view`, with their error exits.
#include "screenshot.h"

#include <QImage>
#include <QProcess>
#include <QTest>

#include "viewer_test_support.h"

namespace racetrack::viewer_test {
namespace {

struct Run {
  int status = -1;
  QString output;
};

Run run(const QString& program, const QStringList& args) {
  QProcess process;
  process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(program, args);
  process.waitForFinished(60000);
  return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
          QString::fromLocal8Bit(process.readAll())};
}

class ScreenshotTest : public QObject {
  Q_OBJECT

 private slots:
  void writesThePngAtTheGivenSize() {
    const QString out = temp_dir(QStringLiteral("shot")) + QStringLiteral("/c1.png");
    const Run r = run(QStringLiteral(RACETRACK_VIEWER),
                      {sample_path(QStringLiteral("c1_reload_not_waited.race.pbtxt")),
                       QStringLiteral("--screenshot"), out, QStringLiteral("--select-hazard"),
                       QStringLiteral("1"), QStringLiteral("--size"), QStringLiteral("1200x800")});
    QVERIFY2(r.status == 0, qPrintable(r.output));
    const QImage image(out);
    QCOMPARE(image.size(), QSize(1200, 800));
  }

  void racetrackViewRunsTheViewer() {
    const QString out = temp_dir(QStringLiteral("view")) + QStringLiteral("/c5.png");
    const Run r =
        run(QStringLiteral(RACETRACK_CLI),
            {QStringLiteral("view"), sample_path(QStringLiteral("c5_consumer_never_waits.race.pbtxt")),
             QStringLiteral("--screenshot"), out});
    QVERIFY2(r.status == 0, qPrintable(r.output));
    QVERIFY(!QImage(out).isNull());
  }

  void badInputExitsTwo() {
    const QString dir = temp_dir(QStringLiteral("shot-bad"));
    const QString sample = sample_path(QStringLiteral("c1_reload_not_waited.clean.pbtxt"));
    Run r = run(QStringLiteral(RACETRACK_VIEWER),
                {sample, QStringLiteral("--screenshot"), dir + QStringLiteral("/x.png"),
                 QStringLiteral("--select-hazard"), QStringLiteral("1")});
    QCOMPARE(r.status, 2);
    QVERIFY2(r.output.contains(QStringLiteral("no hazard 1")), qPrintable(r.output));
    r = run(QStringLiteral(RACETRACK_VIEWER),
            {dir + QStringLiteral("/missing.rtrace"), QStringLiteral("--screenshot"),
             dir + QStringLiteral("/x.png")});
    QCOMPARE(r.status, 2);
    QVERIFY(r.output.contains(QStringLiteral("missing.rtrace")));
    r = run(QStringLiteral(RACETRACK_VIEWER),
            {sample, QStringLiteral("--screenshot"), dir + QStringLiteral("/x.png"), QStringLiteral("--size"),
             QStringLiteral("big")});
    QCOMPARE(r.status, 2);
  }

  void parsesSizes() {
    QCOMPARE(viewer::parse_size(QStringLiteral("1600x900")), std::optional<QSize>(QSize(1600, 900)));
    QVERIFY(!viewer::parse_size(QStringLiteral("16x9")));
    QVERIFY(!viewer::parse_size(QStringLiteral("1600 x 900")));
  }
};

const RegisterSuite kRegister(QStringLiteral("Screenshot"),
                              [] { return std::make_unique<ScreenshotTest>(); });

}  // namespace
}  // namespace racetrack::viewer_test

#include "screenshot_test.moc"
