// The hazard list numbers groups as `racetrack check` does: for a raw synth
// trace, whose possible groups come before the shown ones, every group's
// "[N] signature" row and --select-hazard N (selectGroup) agree with
// `racetrack check --format json`.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>
#include <QTreeWidget>
#include <set>

#include "main_window.h"
#include "viewer_test_support.h"

namespace racetrack::viewer_test {
namespace {

using viewer::MainWindow;

QByteArray run_cli(const QStringList& args) {
  QProcess process;
  process.start(QStringLiteral(RACETRACK_CLI), args);
  process.waitForFinished(120000);
  return process.readAllStandardOutput();
}

// "[N] signature" of every row of the list.
std::map<int, QString> listed_groups(const MainWindow& w) {
  std::map<int, QString> out;
  QTreeWidget* tree = w.hazardPanel()->tree();
  for (int g = 0; g < tree->topLevelItemCount(); ++g) {
    const QString text = tree->topLevelItem(g)->text(0);
    const int close = static_cast<int>(text.indexOf(QLatin1Char(']')));
    out[text.mid(1, close - 1).toInt()] = text.mid(close + 2);
  }
  return out;
}

class NumberingTest : public QObject {
  Q_OBJECT

 private slots:
  void theListNumbersGroupsAsCheckDoes() {
    const QString trace = temp_dir(QStringLiteral("numbering")) + QStringLiteral("/raw.rtrace");
    run_cli({QStringLiteral("synth"), QStringLiteral("-o"), trace, QStringLiteral("--ops"),
             QStringLiteral("6000"), QStringLiteral("--layers"), QStringLiteral("2"),
             QStringLiteral("--microbatches"), QStringLiteral("2"), QStringLiteral("--activation-bytes"),
             QStringLiteral("1048576"), QStringLiteral("--modes"), QStringLiteral("raw"),
             QStringLiteral("--inject"), QStringLiteral("all"),
             // Seed 1 numbers possible groups before the likely ones.
             QStringLiteral("--seed"), QStringLiteral("1")});
    const QJsonObject check =
        QJsonDocument::fromJson(run_cli({QStringLiteral("check"), QStringLiteral("--format"),
                                         QStringLiteral("json"), QStringLiteral("--all"), trace}))
            .object();
    const QJsonArray groups = check[QStringLiteral("groups")].toArray();
    QVERIFY2(groups.size() > 2, "racetrack check found too few groups");
    std::map<int, QString> shown, all;
    std::map<int, std::set<std::pair<qint64, qint64>>> pairs;  // number -> hazards of --all
    for (const auto& value : groups) {
      const QJsonObject g = value.toObject();
      const int number = g[QStringLiteral("number")].toInt();
      all[number] = g[QStringLiteral("signature")].toString();
      if (g[QStringLiteral("shown")].toBool()) shown[number] = all[number];
    }
    for (const auto& value : check[QStringLiteral("hazards")].toArray()) {
      const QJsonObject h = value.toObject();
      pairs[h[QStringLiteral("number")].toInt()].insert(
          {h[QStringLiteral("first")][QStringLiteral("seq")].toInteger(),
           h[QStringLiteral("second")][QStringLiteral("seq")].toInteger()});
    }
    // The point of the trace: a shown group whose number is not its rank.
    QVERIFY(!shown.empty() && shown.begin()->first > 1);

    MainWindow w(MainWindow::Mode::kHeadless);
    QVERIFY2(w.openFileAndWait(trace), qPrintable(w.lastError()));
    QVERIFY(listed_groups(w) == shown);
    for (const auto& [number, signature] : shown) {
      QVERIFY(w.hazardPanel()->selectGroup(number));
      const auto instance = w.hazardPanel()->selectedInstance();
      QVERIFY(instance);
      const auto& h = w.hazards()->instances()[*instance].hazard;
      QVERIFY2(pairs[number].count({static_cast<qint64>(h.first.seq), static_cast<qint64>(h.second.seq)}),
               qPrintable(QStringLiteral("group %1 selected a hazard check lists elsewhere").arg(number)));
    }
    QVERIFY(!w.hazardPanel()->selectGroup(1));  // a possible group: not listed
    w.hazardPanel()->setFilters(QStringLiteral("possible"), {}, {}, {});
    QVERIFY(listed_groups(w) == all);
  }
};

const RegisterSuite kRegister(QStringLiteral("Numbering"), [] { return std::make_unique<NumberingTest>(); });

}  // namespace
}  // namespace racetrack::viewer_test

#include "numbering_test.moc"
