// racetrack-viewer: a timeline of a racetrack trace's streams, with its
// hazards, dependencies and details (docs/viewer.md).
#include <QApplication>
#include <QCommandLineParser>
#include <cstring>
#include <iostream>

#include "check_inputs.h"
#include "code_modes_setting.h"
#include "divergence_marker.h"
#include "main_window.h"
#include "ranks_window.h"
#include "screenshot.h"
#include "timeline_widget.h"

namespace {

// Screenshots need no display: choose the offscreen platform before Qt
// starts, unless the caller chose one.
void prefer_offscreen_for_screenshots(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--screenshot", 12) == 0 && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
      qputenv("QT_QPA_PLATFORM", "offscreen");
}

// Qt aborts when no platform can start; say why instead, and how to get a
// picture without a display.
bool has_display(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0 ||
        std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-v") == 0)
      return true;
  return !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") || !qEnvironmentVariableIsEmpty("DISPLAY") ||
         !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

int usage_error(const QString& message) {
  std::cerr << "racetrack-viewer: " << message.toStdString() << " (see --help)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  prefer_offscreen_for_screenshots(argc, argv);
  if (!has_display(argc, argv)) {
    std::cerr
        << "racetrack-viewer: no display found (DISPLAY and WAYLAND_DISPLAY are not set), so no window can "
           "open. For a picture without a display: racetrack view FILE --screenshot OUT.png "
           "[--select-hazard N]; or run under a virtual display (xvfb-run racetrack view FILE).\n";
    return 2;
  }
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("racetrack"));
  QApplication::setApplicationName(QStringLiteral("racetrack-viewer"));
  QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Timeline of a racetrack trace: streams, hazards, dependencies and details."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(
      QStringLiteral("FILE"),
      QStringLiteral("trace to open (.rtrace, .pbtxt, .json); several traces, a directory "
                     "(its *.rtrace) or a quoted glob show the ranks of a run side by side"));
  const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                      QStringLiteral("render the window offscreen to OUT.png and exit"),
                                      QStringLiteral("OUT.png"));
  const QCommandLineOption hazard(
      QStringLiteral("select-hazard"),
      QStringLiteral("with --screenshot: select hazard group N (1-based, as racetrack check numbers them)"),
      QStringLiteral("N"));
  const QCommandLineOption size(QStringLiteral("size"),
                                QStringLiteral("with --screenshot: window size (default 1600x1000)"),
                                QStringLiteral("WxH"));
  const QCommandLineOption no_code_modes(
      QStringLiteral("no-code-modes"),
      QStringLiteral("do not use the kernels' machine code (the trace's modules) for their argument modes"));
  const QCommandLineOption modes_cache(
      QStringLiteral("modes-cache"),
      QStringLiteral("directory caching machine-code analyses (default ~/.cache/racetrack/modes)"),
      QStringLiteral("DIR"));
  const QCommandLineOption divergence(
      QStringLiteral("divergence"),
      QStringLiteral("mark the first divergence of a `racetrack diff --format json` report of this run"),
      QStringLiteral("DIFF.json"));
  parser.addOption(divergence);
  parser.addOption(screenshot);
  parser.addOption(hazard);
  parser.addOption(size);
  parser.addOption(no_code_modes);
  parser.addOption(modes_cache);
  if (!parser.parse(QApplication::arguments())) return usage_error(parser.errorText());
  if (parser.isSet(QStringLiteral("help"))) parser.showHelp(0);
  if (parser.isSet(QStringLiteral("version"))) parser.showVersion();
  racetrack::viewer::set_code_modes({!parser.isSet(no_code_modes), parser.value(modes_cache).toStdString()});
  std::vector<std::string> inputs;
  for (const QString& f : parser.positionalArguments()) inputs.push_back(f.toStdString());
  auto expanded = racetrack::cli::expand_trace_inputs(inputs);
  if (!expanded) return usage_error(QString::fromStdString(expanded.error().describe()));
  QStringList files;
  for (const std::string& f : *expanded) files.push_back(QString::fromStdString(f));
  QSize shot_size = racetrack::viewer::ScreenshotOptions{}.size;
  if (parser.isSet(size)) {
    const auto parsed = racetrack::viewer::parse_size(parser.value(size));
    if (!parsed)
      return usage_error(QStringLiteral("--size takes WxH, e.g. 1600x1000 (400x300 to 10000x10000)"));
    shot_size = *parsed;
  }
  if (files.size() > 1) {
    // The ranks of a run: a timeline per rank, side by side.
    if (parser.isSet(divergence) || parser.isSet(hazard))
      return usage_error(QStringLiteral("--divergence and --select-hazard take one trace"));
    if (parser.isSet(screenshot))
      return racetrack::viewer::run_ranks_screenshot(files, parser.value(screenshot), shot_size);
    racetrack::viewer::RanksWindow window(files);
    window.resize(shot_size);
    window.show();
    if (!window.openAndWait()) {
      std::cerr << window.lastError().toStdString() << "\n";
      return 2;
    }
    return QApplication::exec();
  }

  if (parser.isSet(screenshot)) {
    racetrack::viewer::ScreenshotOptions options;
    if (files.isEmpty()) return usage_error(QStringLiteral("--screenshot needs a trace file"));
    options.trace = files.first();
    options.out = parser.value(screenshot);
    options.divergence = parser.value(divergence);
    if (parser.isSet(hazard)) {
      bool ok = false;
      options.hazard = parser.value(hazard).toInt(&ok);
      if (!ok || options.hazard < 1)
        return usage_error(QStringLiteral("--select-hazard takes a number from 1"));
    }
    options.size = shot_size;
    return racetrack::viewer::run_screenshot(options);
  }
  if (parser.isSet(hazard) || parser.isSet(size))
    return usage_error(QStringLiteral("--select-hazard and --size go with --screenshot"));

  std::optional<racetrack::viewer::DivergenceMarker> marker;
  if (parser.isSet(divergence)) {
    QString why;
    marker = racetrack::viewer::read_divergence(parser.value(divergence), why);
    if (!marker) return usage_error(why);
  }
  racetrack::viewer::MainWindow window;
  window.show();
  window.timeline()->setDivergence(std::move(marker));
  if (!files.isEmpty()) window.openFile(files.first());
  return QApplication::exec();
}
