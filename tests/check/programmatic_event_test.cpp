// Rule 5a in the checker (docs/ordering-rules.md): a wait on a kernel's
// programmatic event (cudaLaunchAttributeProgrammaticEvent) does not order
// the waiter after the kernel, except a dependent kernel whose code waits
// for its grid dependencies. The C15 programmatic-event samples, and
// variants of them that flip each input of the rule.
#include <gtest/gtest.h>

#include <string>

#include "check_test_support.h"
#include "racetrack/traces/trace_io.h"
#include "test_support.h"

namespace racetrack::check_test {
namespace {

std::string sample(const std::string& name) {
  return std::string(RACETRACK_SAMPLES_DIR) + "/" + name + ".pbtxt";
}

v1::Kernel& kernel_at(v1::Chunk& trace, int index) {
  return *trace.mutable_ops(index)->mutable_kernel();
}

const std::vector<Expected> kCopy = {{1, 3, race::HazardKind::kRaw, race::HazardClass::kCopyVsCompute}};
const std::vector<Expected> kDependent = {
    {1, 3, race::HazardKind::kRaw, race::HazardClass::kComputeVsCompute}};
const std::vector<Expected> kHost = {{1, 3, race::HazardKind::kRaw, race::HazardClass::kHostVsDevice}};

TEST(ProgrammaticEventCheck, ACopyWaitingOnItRacesTheKernel) {
  const race::CheckResult r = expect_hazards(load_sample("c15_programmatic_event_copy.race.pbtxt"), kCopy);
  ASSERT_EQ(r.all.size(), 1u);
  EXPECT_EQ(r.all[0].programmatic.wait_seq, 2u);
  EXPECT_EQ(r.all[0].confidence, race::Confidence::kLikely) << "where the kernel triggers is not read";
  EXPECT_FALSE(r.all[0].pdl);
}

TEST(ProgrammaticEventCheck, WithoutTheAttributeTheWaitIsOnANeverRecordedEvent) {
  // The same program without the attribute: the wait binds to nothing, the
  // copy is unordered, and nothing says it was programmatic.
  v1::Chunk trace = load_sample("c15_programmatic_event_copy.race.pbtxt");
  kernel_at(trace, 0).set_programmatic_event(0);
  const race::CheckResult r = expect_hazards(trace, kCopy);
  EXPECT_EQ(r.all[0].programmatic.wait_seq, 0u);
  EXPECT_EQ(r.all[0].confidence, race::Confidence::kDefinite);
}

TEST(ProgrammaticEventCheck, AnOrdinaryEventAfterTheKernelIsClean) {
  expect_clean(load_sample("c15_programmatic_event_copy.clean.pbtxt"));
}

TEST(ProgrammaticEventCheck, ADependentKernelWithoutTheGridWaitRaces) {
  const race::CheckResult r = expect_hazards(load_sample("c15_programmatic_event_dependent.race.pbtxt"), kDependent);
  ASSERT_EQ(r.all.size(), 1u);
  EXPECT_TRUE(r.all[0].programmatic.dependent_kernel);
  EXPECT_EQ(r.all[0].programmatic.dependent_wait, hb::PdlWait::kNone);
  EXPECT_EQ(r.all[0].confidence, race::Confidence::kLikely);
}

TEST(ProgrammaticEventCheck, ADependentKernelThatWaitsIsOrdered) {
  expect_clean(load_sample("c15_programmatic_event_dependent.clean.pbtxt"));
}

TEST(ProgrammaticEventCheck, ADependentKernelWithUnknownCodeIsPossible) {
  v1::Chunk trace = load_sample("c15_programmatic_event_dependent.clean.pbtxt");
  kernel_at(trace, 2).set_module(0);  // no machine code for the dependent
  const race::CheckResult r = expect_hazards(trace, kDependent);
  EXPECT_EQ(r.all[0].confidence, race::Confidence::kPossible);
  EXPECT_EQ(r.all[0].programmatic.dependent_wait, hb::PdlWait::kUnknown);
  EXPECT_TRUE(check_all(trace, race::CheckOptions{}).shown.empty()) << "hidden at the default confidence";
}

TEST(ProgrammaticEventCheck, AWaitingKernelBehindACopyIsNoDependent) {
  // A copy between the wait and the kernel: the kernel is not the
  // dependent launch, and its grid-dependency wait orders nothing.
  v1::Chunk trace = load_sample("c15_programmatic_event_dependent.clean.pbtxt");
  v1::Op gemm = trace.ops(2);
  v1::Op& copy = *trace.mutable_ops(2);
  copy.clear_kernel();
  copy.mutable_memset()->set_dst(0x7f0000100000);
  copy.mutable_memset()->set_bytes(16);
  gemm.set_seq(4);
  *trace.mutable_ops(3) = gemm;
  v1::Op sync;
  sync.set_seq(5);
  sync.set_thread(1);
  sync.set_stream(2);
  sync.mutable_sync()->set_kind(v1::SYNC_STREAM);
  *trace.add_ops() = sync;
  expect_hazards(trace, {{1, 4, race::HazardKind::kRaw, race::HazardClass::kComputeVsCompute}});
}

TEST(ProgrammaticEventCheck, TheHostSynchronisingOnItRacesTheKernel) {
  const race::CheckResult r = expect_hazards(load_sample("c15_programmatic_event_host.race.pbtxt"), kHost);
  EXPECT_EQ(r.all[0].programmatic.wait_seq, 2u);
  EXPECT_TRUE(r.all[0].programmatic.at_block_start);
  EXPECT_EQ(r.all[0].confidence, race::Confidence::kDefinite) << "every block triggers as it starts";
  expect_clean(load_sample("c15_programmatic_event_host.clean.pbtxt"));
}

TEST(ProgrammaticEventCheck, ExplanationNamesTheEventAndTheFixAnOrdinaryOne) {
  auto r = race::check_file(sample("c15_programmatic_event_copy.race"), race::CheckOptions{});
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->groups.size(), 1u);
  const race::HazardGroup& g = r->groups[0];
  EXPECT_EQ(
      g.explanation,
      "#3 on offload waited for #1 only through kv_ready (at #2), #1's programmatic event, which triggers "
      "once every block of #1 has triggered or exited, not when #1 completes: only a dependent kernel's "
      "grid-dependency wait orders after #1");
  EXPECT_NE(g.fix.text.find("record an ordinary event after #1"), std::string::npos) << g.fix.text;
  EXPECT_TRUE(g.fix.verified);

  r = race::check_file(sample("c15_programmatic_event_dependent.race"), race::CheckOptions{});
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->groups.size(), 1u);
  EXPECT_NE(
      r->groups[0].explanation.find("the dependent kernel #3 has no grid-dependency wait (machine code)"),
      std::string::npos)
      << r->groups[0].explanation;
  EXPECT_NE(
      r->groups[0].fix.text.find("cudaGridDependencySynchronize() (griddepcontrol.wait) before the first "
                                 "access of #3"),
      std::string::npos)
      << r->groups[0].fix.text;
}

}  // namespace
}  // namespace racetrack::check_test
