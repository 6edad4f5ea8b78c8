// Headless screenshots: `racetrack-viewer FILE --screenshot OUT.png
// [--select-hazard N] [--size WxH]` opens the trace in an offscreen window,
// waits for the check, optionally selects the N-th hazard group (as
// `racetrack check` numbers them) and saves the window as a PNG.
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>
#include <optional>

namespace racetrack::viewer {

struct ScreenshotOptions {
  QString trace;
  QString out;
  int hazard = 0;      // 0: none
  QString divergence;  // a `racetrack diff --format json` report to mark, if any
  QSize size{1600, 1000};
};

// "1600x900" -> QSize; nullopt when malformed or absurd.
std::optional<QSize> parse_size(const QString& text);

// Exit status: 0 written, 2 bad input (unreadable trace, no such hazard,
// unwritable output), with the reason on stderr.
int run_screenshot(const ScreenshotOptions& options);
// The ranks of a run side by side (RanksWindow), rendered to `out`.
int run_ranks_screenshot(const QStringList& traces, const QString& out, QSize size);

}  // namespace racetrack::viewer
