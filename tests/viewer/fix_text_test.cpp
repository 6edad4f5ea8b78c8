// A hazard's explanation and fix in full below the details tree: the whole
// text (tree cells elide it), word-wrapped, selectable; hidden for an op.
#include <QPlainTextEdit>
#include <QTest>

#include "details_panel.h"
#include "main_window.h"
#include "viewer_test_support.h"

namespace racetrack::viewer_test {
namespace {

using viewer::MainWindow;

class FixTextTest : public QObject {
  Q_OBJECT

 private slots:
  void theWholeFixIsShownWrappedAndSelectable() {
    MainWindow w(MainWindow::Mode::kHeadless);
    w.resize(1200, 800);
    QVERIFY(w.openFileAndWait(sample_path(QStringLiteral("megatron_inline_reload.race.pbtxt"))));
    const std::vector<uint32_t> listed = w.hazardPanel()->listedInstances();
    QVERIFY(!listed.empty());
    w.hazardPanel()->selectInstance(listed.front());
    const auto& inst = w.hazards()->instances()[listed.front()];
    const race::HazardGroup& group = w.hazards()->result().groups[inst.group];
    QVERIFY(group.fix.text.size() > 120);  // longer than the tree's cell shows

    const QPlainTextEdit* box = w.details()->fixBox();
    QVERIFY(!box->isHidden());
    const QString text = box->toPlainText();
    QVERIFY2(text.contains(QStringLiteral("Fix: ") + QString::fromStdString(group.fix.text)),
             qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("PyTorch: ") + QString::fromStdString(group.fix.pytorch)));
    QVERIFY(text.contains(QStringLiteral("Why: ") + QString::fromStdString(group.explanation)));
    QVERIFY(text.contains(QStringLiteral("Verified: ")));
    QVERIFY(box->isReadOnly());
    QCOMPARE(box->lineWrapMode(), QPlainTextEdit::WidgetWidth);
    QVERIFY(box->textInteractionFlags() & Qt::TextSelectableByMouse);
    QVERIFY(box->textInteractionFlags() & Qt::TextSelectableByKeyboard);

    // An op has no fix: the box goes away.
    const auto ref = w.model()->find(inst.hazard.first.seq);
    QVERIFY(ref);
    w.timeline()->selectOp(*ref);
    QVERIFY(box->isHidden());
  }
};

const RegisterSuite kRegister(QStringLiteral("FixText"), [] { return std::make_unique<FixTextTest>(); });

}  // namespace
}  // namespace racetrack::viewer_test

#include "fix_text_test.moc"
