#include "viewer_test_support.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <stdexcept>

#include "racetrack/traces/container.h"

namespace racetrack::viewer_test {

QString sample_path(const QString& name) {
  return QStringLiteral(RACETRACK_SAMPLES_DIR "/") + name;
}

std::vector<Sample> samples() {
  QFile file(sample_path(QStringLiteral("manifest.json")));
  if (!file.open(QIODevice::ReadOnly)) throw std::runtime_error("cannot read the samples' manifest");
  const QJsonObject manifest = QJsonDocument::fromJson(file.readAll()).object();
  std::vector<Sample> out;
  for (const QJsonValue& s : manifest.value(QStringLiteral("samples")).toArray()) {
    Sample sample{sample_path(s[QStringLiteral("file")].toString()), {}};
    for (const QJsonValue& h : s[QStringLiteral("hazards")].toArray())
      sample.hazards.push_back({static_cast<uint64_t>(h[QStringLiteral("first_seq")].toInteger()),
                                static_cast<uint64_t>(h[QStringLiteral("second_seq")].toInteger()),
                                h[QStringLiteral("kind")].toString(), h[QStringLiteral("class")].toString(),
                                h[QStringLiteral("region")].toString()});
    out.push_back(std::move(sample));
  }
  return out;
}

QString temp_dir(const QString& name) {
  static int counter = 0;
  const QString path = QStringLiteral(RACETRACK_TEST_TMPDIR "/%1-%2-%3")
                           .arg(name)
                           .arg(QCoreApplication::applicationPid())
                           .arg(++counter);
  QDir(path).removeRecursively();
  QDir().mkpath(path);
  return path;
}

const SynthTrace& synth_trace_1m() {
  static const SynthTrace trace = [] {
    SynthTrace t;
    t.path = temp_dir(QStringLiteral("synth")) + QStringLiteral("/synth-1m.rtrace");
    SynthOptions options;
    options.target_ops = 1000000;
    options.inject[static_cast<int>(HazardShape::kC5)] = 1;
    auto writer = TraceWriter::create(t.path.toStdString(), options.writer);
    if (!writer) throw std::runtime_error(writer.error().describe());
    auto result = synthesize(options, *writer);
    if (!result || result->injected.size() != 1) throw std::runtime_error("synth did not inject one hazard");
    if (!writer->close()) throw std::runtime_error("cannot write the synth trace");
    t.injected = result->injected.front();
    t.ops = result->ops;
    return t;
  }();
  return trace;
}

std::map<QString, SuiteFactory>& suites() {
  static std::map<QString, SuiteFactory> registry;
  return registry;
}

}  // namespace racetrack::viewer_test
