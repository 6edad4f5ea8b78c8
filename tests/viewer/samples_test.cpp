// Every sample opens; the hazard list shows exactly the manifest's hazards;
// selecting one puts both ops in view and fills the details with the right
// fields, the overlap highlighted.
#include <QTest>
#include <set>

#include "main_window.h"
#include "viewer_test_support.h"

namespace racetrack::viewer_test {
namespace {

using viewer::MainWindow;

class SamplesTest : public QObject {
  Q_OBJECT

 private slots:
  void everySampleOpensWithExactlyItsHazards() {
    for (const Sample& s : samples()) {
      MainWindow w(MainWindow::Mode::kHeadless);
      QVERIFY2(w.openFileAndWait(s.file), qPrintable(s.file + ": " + w.lastError()));
      QVERIFY(w.model() && w.hazards());
      QVERIFY2(w.model()->op_count() > 0, qPrintable(s.file));
      QVERIFY(!w.timeline()->frame().rows.empty());
      w.hazardPanel()->setFilters(QStringLiteral("possible"), {}, {}, {});
      std::set<std::pair<uint64_t, uint64_t>> listed, expected;
      for (uint32_t i : w.hazardPanel()->listedInstances()) {
        const auto& h = w.hazards()->instances()[i].hazard;
        listed.insert({h.first.seq, h.second.seq});
      }
      for (const ExpectedHazard& h : s.hazards) expected.insert({h.first_seq, h.second_seq});
      QVERIFY2(listed == expected, qPrintable(s.file));
      QCOMPARE(w.hazardPanel()->listedInstances().size(), s.hazards.size());
    }
  }

  void selectingAHazardShowsBothOpsAndItsDetails() {
    for (const Sample& s : samples()) {
      if (s.hazards.empty()) continue;
      MainWindow w(MainWindow::Mode::kHeadless);
      w.resize(1400, 900);
      QVERIFY(w.openFileAndWait(s.file));
      for (const ExpectedHazard& e : s.hazards) {
        std::optional<uint32_t> instance;
        for (uint32_t i : w.hazardPanel()->listedInstances())
          if (w.hazards()->instances()[i].hazard.first.seq == e.first_seq &&
              w.hazards()->instances()[i].hazard.second.seq == e.second_seq)
            instance = i;
        QVERIFY2(instance, qPrintable(s.file));
        // Start from a view that shows neither op.
        w.timeline()->setView(-1e9, -0.9e9);
        w.hazardPanel()->selectInstance(*instance);
        const auto& inst = w.hazards()->instances()[*instance];
        QVERIFY(inst.first && inst.second);
        const auto* model = w.model();
        for (const auto& ref : {*inst.first, *inst.second}) {
          QVERIFY2(w.timeline()->viewStart() <= static_cast<double>(model->start(ref)), qPrintable(s.file));
          QVERIFY2(static_cast<double>(model->end(ref)) <= w.timeline()->viewEnd(), qPrintable(s.file));
          const auto rect = w.timeline()->frame().op_rect(*model, ref);
          QVERIFY2(rect, qPrintable(s.file + ": the op's lane is not on screen"));
          QVERIFY(rect->left() >= viewer::kLaneHeaderWidth && rect->right() <= w.timeline()->width());
        }
        QCOMPARE(w.timeline()->highlight().hazard, instance);
        const viewer::DetailsPanel* d = w.details();
        QCOMPARE(d->field(QStringLiteral("Hazard"), QStringLiteral("kind")), e.kind);
        QCOMPARE(d->field(QStringLiteral("Hazard"), QStringLiteral("class")), e.cls);
        QCOMPARE(d->field(QStringLiteral("Hazard"), QStringLiteral("region")), e.region);
        QCOMPARE(d->field(QStringLiteral("First op"), QStringLiteral("seq")), QString::number(e.first_seq));
        QCOMPARE(d->field(QStringLiteral("Second op"), QStringLiteral("seq")), QString::number(e.second_seq));
        QVERIFY(!d->field(QStringLiteral("First op"), QStringLiteral("thread")).isEmpty());
        QVERIFY(!d->field(QStringLiteral("Hazard"), QStringLiteral("fix")).isEmpty());
        QVERIFY(
            d->field(QStringLiteral("Hazard"), QStringLiteral("overlap")).contains(QStringLiteral("[0x")));
        // The overlap row, plus at least one access of each op and each
        // side's racing access.
        QVERIFY2(d->highlightedRows() >= 3, qPrintable(s.file));
      }
    }
  }

  void detailsNameStreamsTimesAndOrdering() {
    MainWindow w(MainWindow::Mode::kHeadless);
    QVERIFY(w.openFileAndWait(sample_path(QStringLiteral("c1_reload_not_waited.race.pbtxt"))));
    const auto ref = w.model()->find(4);  // the D2H on the offload stream
    QVERIFY(ref);
    w.timeline()->selectOp(*ref);
    const viewer::DetailsPanel* d = w.details();
    QCOMPARE(d->field(QStringLiteral("Op"), QStringLiteral("kind")), QStringLiteral("D2H copy (offload)"));
    QCOMPARE(d->field(QStringLiteral("Op"), QStringLiteral("stream")), QStringLiteral("d2h_stream (d2h)"));
    QCOMPARE(d->field(QStringLiteral("Op"), QStringLiteral("NVTX")), QStringLiteral("fwd/layer0/offload"));
    QCOMPARE(d->field(QStringLiteral("Op"), QStringLiteral("host call")),
             QStringLiteral("10.000 \u00b5s \u2013 16.000 \u00b5s  (6 \u00b5s)"));
    QVERIFY(
        d->field(QStringLiteral("Op"), QStringLiteral("W destination")).contains(QStringLiteral("\"P\"")));
    QCOMPARE(d->field(QStringLiteral("Op"), QStringLiteral("async")), QStringLiteral("yes"));
    // Ordered after the wait on e_c (stream order), before the record of e_off.
    QVERIFY(
        d->field(QStringLiteral("Op"), QStringLiteral("stream order")).startsWith(QStringLiteral("#3 wait")));

    // Regions come from the model's own records; the tables keep none.
    QCOMPARE(w.model()->tables().region_facts(1), nullptr);
    QCOMPARE(w.model()->regions().size(), size_t{5});
    const auto kernel = w.model()->find(8);  // reads R, writes dX
    QVERIFY(kernel);
    w.timeline()->selectOp(*kernel);
    QVERIFY(
        d->field(QStringLiteral("Op"), QStringLiteral("R access 1")).contains(QStringLiteral("\"R\"")));
    QVERIFY(
        d->field(QStringLiteral("Op"), QStringLiteral("W access 2")).contains(QStringLiteral("\"dX\"")));
    const auto alloc = w.model()->find(6);  // allocates R
    QVERIFY(alloc);
    w.timeline()->selectOp(*alloc);
    QCOMPARE(d->field(QStringLiteral("Op"), QStringLiteral("region")), QStringLiteral("R"));
    QVERIFY(d->field(QStringLiteral("Op"), QStringLiteral("range")).contains(QStringLiteral("1.0 MiB")));
    QVERIFY(!d->field(QStringLiteral("Op"), QStringLiteral("origin")).isEmpty());
  }

  // A 2D copy shows its shape, and its destination as a strided hull with
  // its rows under it (docs/check.md, "Strided copies").
  void detailsShowAPitchedCopysShape() {
    MainWindow w(MainWindow::Mode::kHeadless);
    QVERIFY(w.openFileAndWait(sample_path(QStringLiteral("copy2d_rows.clean.pbtxt"))));
    const auto ref = w.model()->find(3);
    QVERIFY(ref);
    w.timeline()->selectOp(*ref);
    const viewer::DetailsPanel* d = w.details();
    QCOMPARE(d->field(QStringLiteral("Op"), QStringLiteral("shape")),
             QStringLiteral("2D 4 rows of 65536 B, dst pitch 131072, src pitch 65536"));
    const QString dst = d->field(QStringLiteral("Op"), QStringLiteral("W destination"));
    QVERIFY2(dst.contains(QStringLiteral("strided: 4 runs of 64.0 KiB")), qPrintable(dst));
    QCOMPARE(d->field(QStringLiteral("Op"), QStringLiteral("run 3")),
             QStringLiteral("[0x7f0000070000, 0x7f0000080000)  64.0 KiB"));
    QVERIFY(!d->field(QStringLiteral("Op"), QStringLiteral("R source")).contains(QStringLiteral("strided")));
  }
};

const RegisterSuite kRegister(QStringLiteral("Samples"), [] { return std::make_unique<SamplesTest>(); });

}  // namespace
}  // namespace racetrack::viewer_test

#include "samples_test.moc"
