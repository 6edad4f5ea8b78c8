// What the viewer suites share: the samples and their manifest, scratch
// files, a synthesized trace, and the suites' registry.
#pragma once

#include <QObject>
#include <QString>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "racetrack/traces/synth.h"

namespace racetrack::viewer_test {

struct ExpectedHazard {
  uint64_t first_seq = 0, second_seq = 0;
  QString kind, cls, region;
};

struct Sample {
  QString file;  // full path
  std::vector<ExpectedHazard> hazards;
};

std::vector<Sample> samples();
QString sample_path(const QString& name);
// A fresh scratch directory per call, under the build tree.
QString temp_dir(const QString& name);
// A synth trace of about `ops` ops with one C5 hazard, generated once per
// process; the injected pair comes with it.
struct SynthTrace {
  QString path;
  InjectedHazard injected;
  uint64_t ops = 0;
};
const SynthTrace& synth_trace_1m();

// Suites register a factory under their name; main runs the one asked for.
using SuiteFactory = std::function<std::unique_ptr<QObject>()>;
std::map<QString, SuiteFactory>& suites();
struct RegisterSuite {
  RegisterSuite(const QString& name, SuiteFactory factory) { suites()[name] = std::move(factory); }
};

}  // namespace racetrack::viewer_test
