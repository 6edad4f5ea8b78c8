#include "check_test_support.h"

#include <google/protobuf/text_format.h>

#include <sstream>
#include <tuple>

#include "racetrack/traces/describe.h"
#include "racetrack/traces/trace_io.h"
#include "racetrack/traces/validate.h"

namespace racetrack::check_test {

std::string to_string(const HazardRecord& h) {
  std::ostringstream out;
  out << "#" << h.key.first_seq << "." << h.key.first_access;
  if (h.key.first_node) out << "/node" << h.key.first_node - 1;
  out << " -> #" << h.key.second_seq << "." << h.key.second_access;
  if (h.key.second_node) out << "/node" << h.key.second_node - 1;
  out << " " << race::kind_name(h.kind) << " [" << hex(h.lo) << ", " << hex(h.hi) << ") "
      << race::class_name(h.cls);
  return out.str();
}

std::string to_string(const HazardSet& set) {
  std::string out;
  for (const HazardRecord& h : set) out += "  " + to_string(h) + "\n";
  return out.empty() ? "  (none)\n" : out;
}

race::CheckOptions keep_all_options() {
  race::CheckOptions options;
  options.keep_all = true;
  options.min_confidence = race::Confidence::kPossible;
  return options;
}

race::CheckResult check_all(const v1::Chunk& trace, race::CheckOptions options) {
  options.keep_all = true;
  return race::check_trace(trace, options);
}

HazardSet hazard_set(const race::CheckResult& result) {
  HazardSet out;
  for (const race::Hazard& h : result.all) out.insert({h.key(), h.kind, h.lo, h.hi, h.cls});
  return out;
}

std::vector<std::string> validation_errors(const v1::Chunk& trace) {
  Validator validator;
  validator.check(trace, 0);
  std::vector<std::string> out;
  for (const Error& e : validator.errors()) out.push_back(e.message);
  return out;
}

std::string text_format(const v1::Chunk& trace) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(trace, &text);
  return text;
}

std::vector<race::FixEdit> fix_edits_for(const std::vector<race::Hazard>& hazards,
                                         const TraceTables& tables) {
  std::vector<race::FixEdit> edits;
  for (const race::Hazard& h : hazards) {
    const race::Fix f = race::suggest_fix(h, tables);
    if (f.available) edits.push_back(f.edit);
  }
  return edits;
}

v1::Chunk load_sample(const std::string& file) {
  auto trace = load_trace(std::string(RACETRACK_SAMPLES_DIR) + "/" + file);
  EXPECT_TRUE(trace.ok()) << trace.error().describe();
  return trace.ok() ? *trace : v1::Chunk{};
}

v1::Chunk apply_edits(const v1::Chunk& trace, std::vector<race::FixEdit> edits) {
  race::FixRewriter rewriter(race::merge_edits(std::move(edits)));
  return rewriter.rewrite(trace);
}

namespace {

using Shape = std::tuple<race::HazardKey, race::HazardKind, race::HazardClass>;

std::string describe(const std::set<Shape>& shapes) {
  std::string out;
  for (const auto& [key, kind, cls] : shapes)
    out += "  " + to_string(HazardRecord{key, kind, 0, 0, cls}) + "\n";
  return out.empty() ? "  (none)\n" : out;
}

}  // namespace

race::CheckResult expect_hazards(const v1::Chunk& trace, const std::vector<Expected>& expected,
                                 race::CheckOptions options) {
  EXPECT_EQ(validation_errors(trace), std::vector<std::string>{});
  race::CheckResult result = check_all(trace, std::move(options));
  std::set<Shape> want, got;
  for (const Expected& e : expected)
    want.insert({race::HazardKey{e.first_seq, e.second_seq, e.first_access, e.second_access, e.first_node,
                                 e.second_node},
                 e.kind, e.cls});
  for (const race::Hazard& h : result.all) got.insert({h.key(), h.kind, h.cls});
  EXPECT_EQ(got, want) << "expected:\n" << describe(want) << "got:\n" << describe(got);
  EXPECT_EQ(result.all.size(), expected.size()) << "one hazard per expected pair";
  return result;
}

void expect_clean(const v1::Chunk& trace, race::CheckOptions options) {
  expect_hazards(trace, {}, std::move(options));
}

void expect_fixes_clean(const v1::Chunk& trace, race::CheckOptions options) {
  const race::CheckResult result = check_all(trace, options);
  ASSERT_FALSE(result.all.empty()) << "nothing to fix";
  for (const race::Hazard& h : result.all)
    EXPECT_TRUE(race::suggest_fix(h, *result.tables).available)
        << "no fix for #" << h.first.seq << " -> #" << h.second.seq;
  const v1::Chunk fixed = apply_edits(trace, fix_edits_for(result.all, *result.tables));
  EXPECT_EQ(validation_errors(fixed), std::vector<std::string>{});
  const race::CheckResult again = check_all(fixed, options);
  EXPECT_TRUE(again.all.empty()) << "the fixed trace still has " << again.all.size() << " hazard(s):\n"
                                 << to_string(hazard_set(again)) << text_format(fixed);
}

}  // namespace racetrack::check_test
