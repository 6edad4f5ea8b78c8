// The viewer uses the kernels' machine-code modes (the trace's modules) as
// `racetrack check` does, and its details panel says where a racing
// access's mode came from and numbers the group as check does.
#include <QTest>

#include "main_window.h"
#include "racetrack/code/access_modes.h"
#include "racetrack/traces/builder.h"
#include "racetrack/traces/sha256.h"
#include "racetrack/traces/trace_io.h"
#include "viewer_test_support.h"

namespace racetrack::viewer_test {
namespace {

using viewer::MainWindow;

// A D2H copy reads block a while a kernel on the compute stream, unordered,
// writes it through word 1: its machine code (a module's stored analysis)
// says so, which makes the race likely, and so shown.
QString write_racing_trace(const QString& path) {
  TraceBuilder b;
  auto compute = b.stream("compute", v1::ROLE_COMPUTE);
  auto copy = b.stream("d2h", v1::ROLE_D2H);
  auto segment = b.device_buffer("segment", 1 << 20);
  auto a = b.alloc_at("a", 4096, v1::ORIGIN_FRAMEWORK_BLOCK, compute, segment.base);
  auto host = b.pinned_buffer("host", 4096);
  v1::FunctionCode f;
  f.set_name(b.intern("writer_kernel"));
  f.add_words(v1::WORD_WRITE);
  f.set_analyzer_version(code::kAnalyzerVersion);
  const std::string tag = "viewer";
  const uint32_t module = b.module("m", "", Sha256::hex(tag.data(), tag.size()), {f});
  b.memcpy(copy, host, a);
  b.kernel(compute, "writer_kernel", {}, {}, {.raw_words_only = true, .scalars = {a.base}});
  b.last_op().mutable_kernel()->set_module(module);
  const Status written = save_trace(b.take(), path.toStdString());
  return written ? QString() : QString::fromStdString(written.error().describe());
}

class CodeModesTest : public QObject {
  Q_OBJECT

 private slots:
  void detailsSayTheModeCameFromTheMachineCode() {
    const QString trace = temp_dir(QStringLiteral("code-modes")) + QStringLiteral("/racing.pbtxt");
    const QString error = write_racing_trace(trace);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    MainWindow w(MainWindow::Mode::kHeadless);
    QVERIFY2(w.openFileAndWait(trace), qPrintable(w.lastError()));
    QVERIFY(w.hazardPanel()->selectGroup(1));
    const viewer::DetailsPanel* d = w.details();
    QVERIFY2(d->field(QStringLiteral("Hazard"), QStringLiteral("group")).startsWith(QStringLiteral("[1] ")),
             qPrintable(d->field(QStringLiteral("Hazard"), QStringLiteral("group"))));
    QCOMPARE(d->field(QStringLiteral("Hazard"), QStringLiteral("confidence")), QStringLiteral("likely"));
    const QString second = d->field(QStringLiteral("Second op"), QStringLiteral("racing access"));
    QVERIFY2(second.contains(QStringLiteral("writes (machine code)")), qPrintable(second));
    const QString first = d->field(QStringLiteral("First op"), QStringLiteral("racing access"));
    QVERIFY2(first.contains(QStringLiteral("reads (recorded)")), qPrintable(first));
  }
};

const RegisterSuite kRegister(QStringLiteral("CodeModes"), [] { return std::make_unique<CodeModesTest>(); });

}  // namespace
}  // namespace racetrack::viewer_test

#include "code_modes_test.moc"
