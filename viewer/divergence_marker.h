// The first divergence `racetrack diff --format json` found, as a marker on
// the run's timeline (docs/diff.md, docs/viewer.md): where it is and what
// it says.
#pragma once

#include <QString>
#include <cstdint>
#include <optional>

namespace racetrack::viewer {

struct DivergenceMarker {
  int64_t time_ns = 0;  // absolute (CLOCK_REALTIME), as the values record has it
  QString label;        // "first divergence: backward block.fc1 aten::mm #0 (never ran)"
};

// Reads a `racetrack diff --format json` report. nullopt with `error` set
// when it cannot be read, has no divergence, or the divergence has no time.
std::optional<DivergenceMarker> read_divergence(const QString& path, QString& error);

}  // namespace racetrack::viewer
