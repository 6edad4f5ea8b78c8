// Acceptance of synth's injections against racetrack check (docs/synth.md):
// `synth --inject all` (every shape once), seeds 1-5 at 10^6 ops (--ops N to
// change), known modes (--modes raw or code to score those instead). Per
// shape, found/injected: the injected pair is shown at the default
// confidence with the truth's kind, address and bytes, and where check
// names the shape in its explanation (C9, C10, C11, C14, C15, C16,
// C16_unjoined) it does. Check
// explains each group's first hazard only: a C9 pair grouped under an
// earlier C5 (the same signature) or a C11 under a C2 shares their
// explanation, and counts as found on its pair alone. The clean trace of
// each seed must show no hazard. Check time of the injected trace is printed
// as a ratio of the clean trace's, measured in the same run. Last, per
// shape, the confidence at which the pair itself is found at all (a pass
// that keeps every hazard): with raw words, inferred extents and modes
// change what a strict match requires.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "bench_support.h"
#include "racetrack/code/access_modes.h"
#include "racetrack/race/checker.h"
#include "racetrack/race/code_modes.h"

namespace rt = racetrack;
namespace {

struct Options {
  uint64_t ops = 1000000;
  std::string modes = "known";
};

std::string make_trace(uint64_t seed, const Options& o, bool inject, rt::SynthResult& truth) {
  rt::SynthOptions s;
  s.seed = seed;
  s.target_ops = o.ops;
  s.known_modes = o.modes == "known";
  s.code_modes = o.modes == "code";
  s.analyzer_version = rt::code::kAnalyzerVersion;
  if (inject) s.inject.fill(1);
  const std::string path = (rt::bench::bench_dir() / ("synth-truth-" + o.modes + "-s" + std::to_string(seed) +
                                                      (inject ? "-inject" : "-clean") + ".rtrace"))
                               .string();
  auto writer = rt::TraceWriter::create(path, s.writer);
  if (!writer) rt::bench::fail(writer.error());
  auto result = rt::synthesize(s, *writer);
  if (!result) rt::bench::fail(result.error());
  if (auto closed = writer->close(); !closed) rt::bench::fail(closed.error());
  truth = std::move(*result);
  return path;
}

rt::race::CheckResult check(const std::string& path, double& seconds, bool keep_all = false) {
  rt::race::CheckOptions options;
  options.keep_all = keep_all;
  options.explain_and_fix = !keep_all;
  options.code_modes = std::make_shared<rt::race::CodeModeTable>(rt::race::CodeModesOptions{});
  const auto start = std::chrono::steady_clock::now();
  auto result = rt::race::check_file(path, options);
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result) rt::bench::fail(result.error());
  return std::move(*result);
}

// What the explanation says for the shapes check names.
const char* expected_why(rt::HazardShape shape) {
  switch (shape) {
    case rt::HazardShape::kC9: return "waited, but on an event recorded on another stream than";
    case rt::HazardShape::kC10: return "waited on one producer of";
    case rt::HazardShape::kC11: return "waited, but on an event recorded on another stream than";
    case rt::HazardShape::kC15: return "programmatic stream serialization";
    case rt::HazardShape::kC14: return "where the completion of external agent";
    case rt::HazardShape::kC16: return "at its capture-time address";
    case rt::HazardShape::kC16Unjoined: return "is not joined back into";
    default: return "";
  }
}

enum class Match { kNone, kPair, kPairAndWhy };

Match match(const rt::race::Hazard& h, const rt::InjectedHazard& i, const rt::race::CheckResult& result) {
  if (h.first.seq != i.first_seq || h.second.seq != i.second_seq || rt::race::kind_name(h.kind) != i.kind ||
      h.lo != i.address || h.hi - h.lo != i.bytes)
    return Match::kNone;
  const rt::race::HazardGroup& group = result.groups[h.group];
  if (!(group.first.key() == h.key())) return Match::kPair;  // explained as its group's first
  return group.explanation.find(expected_why(i.shape)) != std::string::npos ? Match::kPairAndWhy
                                                                            : Match::kNone;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--ops") == 0) o.ops = std::stoull(argv[i + 1]);
    if (std::strcmp(argv[i], "--modes") == 0) o.modes = argv[i + 1];
  }
  std::printf("synth --inject all against racetrack check, --modes %s, %llu ops, seeds 1-5\n",
              o.modes.c_str(), static_cast<unsigned long long>(o.ops));
  std::printf(
      "found: the pair shown at >= likely with the truth's kind, address and bytes (and the shape's "
      "why)\n\n");
  std::printf("%-5s %-7s %-9s %-14s %-12s %s\n", "seed", "clean", "found", "not placed", "check time",
              "per shape");
  std::printf("%-5s %-7s %-9s %-14s %-12s\n", "", "shown", "/injected", "", "inj/clean");
  std::map<std::string, std::pair<int, int>> totals;  // shape -> found, injected
  std::map<std::string, std::array<int, 4>> pair_at;  // shape -> pairs by confidence found at; missed
  uint64_t clean_shown = 0, found_all = 0, injected_all = 0;
  uint64_t why_checked = 0, why_total = 0;  // pairs of shapes check names that are their group's first
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    rt::SynthResult clean_truth, truth;
    double clean_s = 0, inject_s = 0;
    const rt::race::CheckResult clean = check(make_trace(seed, o, false, clean_truth), clean_s);
    const std::string injected_path = make_trace(seed, o, true, truth);
    const rt::race::CheckResult result = check(injected_path, inject_s);
    double every_s = 0;
    const rt::race::CheckResult every = check(injected_path, every_s, true);
    clean_shown += clean.shown_groups();
    std::map<std::string, std::pair<int, int>> per_shape;
    uint64_t found = 0;
    for (const rt::InjectedHazard& i : truth.injected) {
      Match best = Match::kNone;
      for (const rt::race::Hazard& h : result.shown) best = std::max(best, match(h, i, result));
      const bool hit = best != Match::kNone;
      int at = 3;  // missed
      for (const rt::race::Hazard& h : every.all)
        if (h.first.seq == i.first_seq && h.second.seq == i.second_seq)
          at = std::min(at, 2 - static_cast<int>(h.confidence));
      ++pair_at[std::string(rt::shape_name(i.shape))][static_cast<size_t>(at)];
      found += hit;
      if (*expected_why(i.shape)) {
        ++why_total;
        why_checked += best == Match::kPairAndWhy;
      }
      for (auto* m : {&per_shape, &totals}) {
        auto& [f, n] = (*m)[std::string(rt::shape_name(i.shape))];
        f += hit;
        ++n;
      }
    }
    found_all += found;
    injected_all += truth.injected.size();
    std::string shapes, unplaced;
    for (int s = 0; s < rt::kHazardShapeCount; ++s) {
      const std::string name(rt::shape_name(static_cast<rt::HazardShape>(s)));
      if (truth.not_placed[s]) unplaced += name + " ";
      if (auto it = per_shape.find(name); it != per_shape.end())
        shapes +=
            name + " " + std::to_string(it->second.first) + "/" + std::to_string(it->second.second) + "  ";
    }
    char found_text[32];
    std::snprintf(found_text, sizeof found_text, "%llu/%zu", static_cast<unsigned long long>(found),
                  truth.injected.size());
    std::printf("%-5llu %-7llu %-9s %-14s %-11.2fx %s\n", static_cast<unsigned long long>(seed),
                static_cast<unsigned long long>(clean.shown_groups()), found_text,
                unplaced.empty() ? "-" : unplaced.c_str(), inject_s / clean_s, shapes.c_str());
  }
  std::printf("\nper shape over the five seeds:");
  for (int s = 0; s < rt::kHazardShapeCount; ++s) {
    const std::string name(rt::shape_name(static_cast<rt::HazardShape>(s)));
    const auto& [f, n] = totals[name];
    std::printf(" %s %d/%d", name.c_str(), f, n);
  }
  std::printf("\nthe pair at any confidence (definite/likely/possible/missed):");
  for (int s = 0; s < rt::kHazardShapeCount; ++s) {
    const std::string name(rt::shape_name(static_cast<rt::HazardShape>(s)));
    const auto& c = pair_at[name];
    std::printf(" %s %d/%d/%d/%d", name.c_str(), c[0], c[1], c[2], c[3]);
  }
  std::printf(
      "\nC9/C10/C11/C14/C15/C16/C16_unjoined pairs whose own explanation was checked (their group's first): "
      "%llu of %llu; "
      "the "
      "others share the explanation of an earlier pair with their signature (C5's, C2's)",
      static_cast<unsigned long long>(why_checked), static_cast<unsigned long long>(why_total));
  std::printf("\nclean shown groups: %llu (target 0); injected found: %llu of %llu; acceptance %s\n",
              static_cast<unsigned long long>(clean_shown), static_cast<unsigned long long>(found_all),
              static_cast<unsigned long long>(injected_all),
              clean_shown == 0 && found_all == injected_all ? "met" : "MISSED");
  return 0;
}
