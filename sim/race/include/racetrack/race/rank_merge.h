// One report for many traces (the ranks of a distributed run): each hazard
// group once, by signature, with the ranks it appears on and its first
// occurrence on each (docs/distributed.md, docs/schemas/check-ranks.schema.json).
// It merges single-trace JSON reports (check's --format json), so the
// local pool and a Dask cluster, whose workers run `racetrack check`, give
// the same report.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace racetrack::race {

// One trace's outcome: its check report, or why it could not be checked.
struct RankReport {
  std::string path;
  std::optional<std::string> error;  // unreadable, truncated or invalid
  nlohmann::ordered_json report;     // check.schema.json, when no error
};

// The merged document (check-ranks.schema.json). Traces are listed by rank
// (traces without one last, by path); groups strongest first, then by the
// number of traces they appear on.
nlohmann::ordered_json merge_rank_reports(const std::vector<RankReport>& ranks);

// The merged document as text for people: every trace's line, then at most
// `max_groups` shown groups in full.
std::string format_ranks_text(const nlohmann::ordered_json& merged, size_t max_groups);

}  // namespace racetrack::race
