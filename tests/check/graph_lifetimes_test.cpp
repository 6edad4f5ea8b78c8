// C16, CUDA graph lifetimes (docs/hazards.md): a launch touching an address
// whose capture-time region was freed is a hazard whatever the ordering;
// captured ops are not run; a side stream not joined before the capture
// ends is reported; graph-pool memory another allocation holds is a reuse
// hazard only where the two are unordered. Each test fails if its rule goes.
#include <gtest/gtest.h>

#include "check_test_support.h"

namespace racetrack::check_test {
namespace {

using race::HazardClass;
using race::HazardKind;

v1::Op& op_at(v1::Chunk& trace, uint64_t seq) {
  for (v1::Op& op : *trace.mutable_ops())
    if (op.seq() == seq) return op;
  ADD_FAILURE() << "no op " << seq;
  return *trace.mutable_ops(0);
}

TEST(GraphLifetimes, CapturedAddressFreedIsAHazardThoughTheLaunchIsOrdered) {
  // Every op is on one stream: only the lifetime rule can report this.
  const v1::Chunk trace = load_sample("c16_graph_freed_input.race.pbtxt");
  const race::CheckResult r =
      expect_hazards(trace, {{7, 10, HazardKind::kRaw, HazardClass::kReuse, 0, 0, 0, 1}});
  ASSERT_EQ(r.all.size(), 1u);
  const race::HazardSide& launch = r.all[0].second;
  EXPECT_EQ(launch.graph_lifetime, race::GraphLifetime::kCapturedFreed);
  EXPECT_EQ(r.tables->string(launch.captured_label), "act_in");
  EXPECT_EQ(r.tables->string(launch.owner_label), "reloaded_act");
  EXPECT_EQ(launch.captured_seq, 4u);
}

TEST(GraphLifetimes, WithoutCapturedSeqTheLaunchResolvesAtTheLaunch) {
  v1::Chunk trace = load_sample("c16_graph_freed_input.race.pbtxt");
  op_at(trace, 10).mutable_graph()->set_captured_seq(0);
  expect_clean(trace);
}

TEST(GraphLifetimes, ReCaptureFixNamesTheNewCaptureAndChecksClean) {
  const v1::Chunk trace = load_sample("c16_graph_freed_input.race.pbtxt");
  expect_fixes_clean(trace);
  const race::CheckResult r = check_all(trace);
  const v1::Chunk fixed = apply_edits(trace, fix_edits_for(r.all, *r.tables));
  ASSERT_TRUE(validation_errors(fixed).empty()) << text_format(fixed);
  // BEGIN and END inserted before the second launch, which names the END.
  const v1::Op& launch = fixed.ops(fixed.ops_size() - 1);
  ASSERT_TRUE(launch.has_graph());
  const v1::Op& end = fixed.ops(fixed.ops_size() - 2);
  ASSERT_TRUE(end.has_capture());
  EXPECT_EQ(end.capture().phase(), v1::CAPTURE_END);
  EXPECT_EQ(launch.graph().captured_seq(), end.seq());
  EXPECT_EQ(fixed.ops(fixed.ops_size() - 3).capture().phase(), v1::CAPTURE_BEGIN);
}

TEST(GraphLifetimes, UnjoinedSideStreamIsReportedAtTheCaptureEnd) {
  const v1::Chunk trace = load_sample("c16_unjoined_side_stream.race.pbtxt");
  const race::CheckResult r = expect_hazards(
      trace, {{5, 7, HazardKind::kRaw, HazardClass::kComputeVsCompute, 1, 1}});  // side_out: access 1
  EXPECT_EQ(r.all.at(0).second.graph_lifetime, race::GraphLifetime::kUnjoinedCapture);
  expect_fixes_clean(trace);
  expect_clean(load_sample("c16_unjoined_side_stream.clean.pbtxt"));
}

TEST(GraphLifetimes, CapturedOpsAreNotRun) {
  // The captured side_proj (seq 5) writes side_out; a host read of it
  // after the capture races nothing, since the capture ran nothing.
  v1::Chunk trace = load_sample("c16_unjoined_side_stream.clean.pbtxt");
  v1::Op& end = op_at(trace, 9);
  ASSERT_TRUE(end.has_capture());
  v1::Op host;
  host.set_seq(10);
  host.set_thread(1);
  auto* a = host.mutable_host_access()->add_accesses();
  a->set_region(2);
  a->set_size(65536);
  a->set_mode(v1::MODE_WRITE);
  // Replace the replay with the host write.
  *trace.mutable_ops(trace.ops_size() - 1) = host;
  expect_clean(trace);
}

TEST(GraphLifetimes, GraphPoolAliasIsAReuseHazardOnlyWhenUnordered) {
  const v1::Chunk trace = load_sample("c16_graph_pool_alias.race.pbtxt");
  const race::CheckResult r =
      expect_hazards(trace, {{11, 12, HazardKind::kWar, HazardClass::kReuse, 0, 1, 0, 1}});
  for (const race::Hazard& h : r.all) {
    EXPECT_EQ(h.second.graph_lifetime, race::GraphLifetime::kPoolAlias);
    EXPECT_EQ(r.tables->string(h.second.captured_label), "tmp");
  }
  expect_fixes_clean(trace);
  expect_clean(load_sample("c16_graph_pool_alias.clean.pbtxt"));
}

TEST(GraphLifetimes, ValidatorRejectsACapturedSeqThatIsNoCaptureEnd) {
  v1::Chunk trace = load_sample("c16_graph_freed_input.race.pbtxt");
  op_at(trace, 10).mutable_graph()->set_captured_seq(3);
  const auto errors = validation_errors(trace);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("not an earlier capture end"), std::string::npos) << errors[0];
}

TEST(GraphLifetimes, ValidatorRejectsAnEndWithoutABegin) {
  v1::Chunk trace = load_sample("c16_graph_freed_input.race.pbtxt");
  op_at(trace, 2).mutable_capture()->set_phase(v1::CAPTURE_END);
  const auto errors = validation_errors(trace);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("no capture begun"), std::string::npos) << errors[0];
}

}  // namespace
}  // namespace racetrack::check_test
