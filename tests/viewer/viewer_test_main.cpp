// Runs one suite (argv[1]) or all of them, each with QTest's own options
// after the suite's name.
#include <QApplication>
#include <QStandardPaths>
#include <QTest>
#include <iostream>

#include "viewer_test_support.h"

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  // Settings (recent files, window layout) go to a test location.
  QStandardPaths::setTestModeEnabled(true);
  auto& suites = racetrack::viewer_test::suites();
  QStringList args = QApplication::arguments();
  std::vector<QString> chosen;
  if (args.size() > 1 && !args[1].startsWith(QLatin1Char('-'))) {
    if (!suites.count(args[1])) {
      std::cerr << "no suite " << args[1].toStdString() << "; suites:";
      for (const auto& [name, factory] : suites) std::cerr << " " << name.toStdString();
      std::cerr << "\n";
      return 2;
    }
    chosen.push_back(args[1]);
    args.removeAt(1);
  } else {
    for (const auto& [name, factory] : suites) chosen.push_back(name);
  }
  int failures = 0;
  for (const QString& name : chosen) {
    auto suite = suites.at(name)();
    failures += QTest::qExec(suite.get(), args);
  }
  return failures == 0 ? 0 : 1;
}
