// The first divergence of `racetrack diff` on the run's timeline: a marker
// at its time (absolute, against the trace's time origin), drawn in its
// colour with its label; bad reports are refused with exit 2.
#include <QImage>
#include <QProcess>
#include <QTest>
#include <fstream>

#include "main_window.h"
#include "op_style.h"
#include "timeline_widget.h"
#include "trace_model.h"
#include "viewer_test_support.h"

namespace racetrack::viewer_test {
namespace {

using viewer::MainWindow;

// A `racetrack diff --format json` report whose divergence ran at `time_ns`.
QString write_report(const QString& dir, const std::string& name, const std::string& at) {
  const QString path = dir + QStringLiteral("/") + QString::fromStdString(name);
  std::ofstream(path.toStdString())
      << R"({"diverged": true, "first_divergence": {"how": "zeros-vs-nonzeros",)"
      << R"( "run": {"phase": "backward", "module": "block.fc1", "op": "aten::mm", "n": 0},)"
      << R"( "baseline": {"phase": "backward", "module": "block.fc1", "op": "aten::mm", "n": 0})" << at
      << "}}";
  return path;
}

int purple_pixels_in_column(const QImage& image, int x) {
  const QColor purple = QColor::fromRgb(viewer::kDivergenceRgb);
  int n = 0;
  for (int dx = -1; dx <= 1; ++dx)
    for (int y = viewer::kRulerHeight; y < image.height() - 40; ++y)
      if (image.pixelColor(x + dx, y) == purple) ++n;
  return n;
}

class DivergenceTest : public QObject {
  Q_OBJECT

 private slots:
  void markerAtTheDivergencesTime() {
    MainWindow w(MainWindow::Mode::kHeadless);
    w.resize(1400, 900);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openFileAndWait(sample_path(QStringLiteral("c1_reload_not_waited.race.pbtxt"))));
    const viewer::TraceModel& model = *w.model();
    const int64_t origin = model.tables().header().time_origin_ns();
    const int64_t middle = (model.start_ns() + model.end_ns()) / 2;
    const QString dir = temp_dir(QStringLiteral("divergence"));
    QString why;
    auto marker = viewer::read_divergence(
        write_report(dir, "d.json", R"(, "at": {"time_ns": )" + std::to_string(origin + middle) + "}"), why);
    QVERIFY2(marker, qPrintable(why));
    QVERIFY(marker->label.contains(QStringLiteral("backward block.fc1 aten::mm")));

    QVERIFY(!w.timeline()->divergenceX());
    QImage image = w.timeline()->grab().toImage();
    const viewer::Viewport vp = w.timeline()->frame().viewport;
    const int x = static_cast<int>(vp.x_of(static_cast<double>(middle)));
    QCOMPARE(purple_pixels_in_column(image, x), 0);

    w.timeline()->setDivergence(marker);
    const auto at = w.timeline()->divergenceX();
    QVERIFY(at);
    QVERIFY(std::abs(*at - vp.x_of(static_cast<double>(middle))) < 1.0);  // the origin taken off
    image = w.timeline()->grab().toImage();
    QVERIFY(purple_pixels_in_column(image, x) > 100);

    // Outside the view: no marker drawn.
    w.timeline()->setDivergence(
        viewer::DivergenceMarker{origin + model.end_ns() + (model.end_ns() - model.start_ns()) * 10, {}});
    QVERIFY(!w.timeline()->divergenceX());
  }

  void badReportsAreRefused() {
    const QString dir = temp_dir(QStringLiteral("divergence-bad"));
    QString why;
    QVERIFY(!viewer::read_divergence(dir + QStringLiteral("/none.json"), why));
    QVERIFY(why.contains(QStringLiteral("cannot open")));
    QVERIFY(!viewer::read_divergence(write_report(dir, "no-time.json", ""), why));
    QVERIFY2(why.contains(QStringLiteral("has no time")), qPrintable(why));
    const QString clean = dir + QStringLiteral("/clean.json");
    std::ofstream(clean.toStdString()) << R"({"diverged": false, "first_divergence": null})";
    QVERIFY(!viewer::read_divergence(clean, why));
    QVERIFY(why.contains(QStringLiteral("no divergence")));

    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(
        QStringLiteral(RACETRACK_VIEWER),
        {sample_path(QStringLiteral("c1_reload_not_waited.race.pbtxt")), QStringLiteral("--divergence"),
         clean, QStringLiteral("--screenshot"), dir + QStringLiteral("/x.png")});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 2);
    QVERIFY(QString::fromLocal8Bit(process.readAll()).contains(QStringLiteral("no divergence")));
  }
};

const RegisterSuite kRegister(QStringLiteral("Divergence"),
                              [] { return std::make_unique<DivergenceTest>(); });

}  // namespace
}  // namespace racetrack::viewer_test

#include "divergence_test.moc"
