#include "screenshot.h"

#include <QApplication>
#include <QRegularExpression>
#include <iostream>

#include "divergence_marker.h"
#include "main_window.h"
#include "ranks_window.h"
#include "timeline_widget.h"
#include "racetrack/traces/output_file.h"

namespace racetrack::viewer {

std::optional<QSize> parse_size(const QString& text) {
  static const QRegularExpression format(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$"));
  const auto m = format.match(text);
  if (!m.hasMatch()) return std::nullopt;
  const int w = m.captured(1).toInt(), h = m.captured(2).toInt();
  if (w < 400 || h < 300 || w > 10000 || h > 10000) return std::nullopt;
  return QSize(w, h);
}

namespace {

// Saves the window as a PNG at `out` (atomically); false after saying why not.
bool save_png(QWidget& window, const std::string& out) {
  QApplication::processEvents();
  auto file = OutputFile::create(out);
  if (!file || !window.grab().save(QString::fromStdString(file->temp_path()), "PNG") || !file->commit()) {
    std::cerr << out << ": cannot write the screenshot\n";
    return false;
  }
  return true;
}

}  // namespace

int run_screenshot(const ScreenshotOptions& options) {
  const std::string out = options.out.toStdString();
  std::vector<std::string> inputs = {options.trace.toStdString()};
  if (!options.divergence.isEmpty()) inputs.push_back(options.divergence.toStdString());
  if (auto usable = check_output(out, inputs); !usable) {
    std::cerr << usable.error().describe() << "\n";
    return 2;
  }
  MainWindow window(MainWindow::Mode::kHeadless);
  window.resize(options.size);
  window.show();
  QApplication::processEvents();
  if (!window.openFileAndWait(options.trace)) return 2;  // the window said why on stderr
  if (options.hazard > 0 && !window.selectHazardGroup(options.hazard)) {
    const size_t groups = window.hazards() ? window.hazards()->result().groups.size() : 0;
    std::cerr << options.trace.toStdString() << ": no hazard " << options.hazard << " (the trace has "
              << groups << " hazard group(s) listed)\n";
    return 2;
  }
  if (!options.divergence.isEmpty()) {
    QString why;
    auto marker = read_divergence(options.divergence, why);
    if (!marker) {
      std::cerr << why.toStdString() << "\n";
      return 2;
    }
    window.timeline()->setDivergence(std::move(marker));
  }
  if (!save_png(window, out)) return 2;
  std::cout << "wrote " << options.out.toStdString() << " (" << options.size.width() << "x"
            << options.size.height() << ")\n";
  return 0;
}

int run_ranks_screenshot(const QStringList& traces, const QString& out_path, QSize size) {
  const std::string out = out_path.toStdString();
  std::vector<std::string> inputs;
  for (const QString& t : traces) inputs.push_back(t.toStdString());
  if (auto usable = check_output(out, inputs); !usable) {
    std::cerr << usable.error().describe() << "\n";
    return 2;
  }
  RanksWindow window(traces);
  window.resize(size);
  window.show();
  QApplication::processEvents();
  if (!window.openAndWait()) {
    std::cerr << window.lastError().toStdString() << "\n";
    return 2;
  }
  if (!save_png(window, out)) return 2;
  std::cout << "wrote " << out << " (" << traces.size() << " ranks, " << size.width() << "x" << size.height()
            << ")\n";
  return 0;
}

}  // namespace racetrack::viewer
