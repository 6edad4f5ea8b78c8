#include "divergence_marker.h"

#include <fstream>
#include <nlohmann/json.hpp>

namespace racetrack::viewer {

std::optional<DivergenceMarker> read_divergence(const QString& path, QString& error) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  if (!in) {
    error = path + QStringLiteral(": cannot open the divergence report");
    return std::nullopt;
  }
  const nlohmann::json report = nlohmann::json::parse(in, nullptr, false);
  if (report.is_discarded() || !report.is_object() || !report.contains("first_divergence")) {
    error = path + QStringLiteral(": not a `racetrack diff --format json` report");
    return std::nullopt;
  }
  const nlohmann::json& first = report["first_divergence"];
  if (first.is_null()) {
    error = path + QStringLiteral(": the report found no divergence");
    return std::nullopt;
  }
  const auto at = first.find("at");
  if (at == first.end() || !at->is_object() || !at->contains("time_ns") ||
      !(*at)["time_ns"].is_number_integer()) {
    error = path +
            QStringLiteral(": the divergence has no time (a values record written before times were kept)");
    return std::nullopt;
  }
  const bool missing = first.value("how", "") == "missing";
  const nlohmann::json& op = missing || !first["run"].is_object() ? first["baseline"] : first["run"];
  auto text = [&](const char* key) {
    return QString::fromStdString(op.is_object() ? op.value(key, "") : "");
  };
  DivergenceMarker m;
  m.time_ns = (*at)["time_ns"].get<int64_t>();
  m.label = QStringLiteral("first divergence: %1 %2 %3 (%4)")
                .arg(text("phase"), text("module"), text("op"),
                     missing ? QStringLiteral("never ran; it belongs after this point")
                             : QString::fromStdString(first.value("how", "")));
  return m;
}

}  // namespace racetrack::viewer
