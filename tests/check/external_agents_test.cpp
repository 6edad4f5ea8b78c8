// C14, agents outside CUDA streams (docs/hazards.md): an external access
// declared by annotation is in flight until its completion is observed (a
// record of its done event, or its agent's external-done), and is checked
// like stream work from there. Each test fails if its rule goes.
#include <gtest/gtest.h>

#include "check_test_support.h"

namespace racetrack::check_test {
namespace {

using race::HazardClass;
using race::HazardKind;

TEST(ExternalAgents, CompletionObservedButNotWaitedForIsAHazardNamingTheAgent) {
  const v1::Chunk trace = load_sample("c14_external_agent.race.pbtxt");
  const race::CheckResult r = expect_hazards(trace, {{2, 3, HazardKind::kRaw, HazardClass::kCopyVsCompute}});
  EXPECT_EQ(r.tables->string(r.all.at(0).first.external_agent), "nixl_rdma");
  EXPECT_EQ(r.all.at(0).first.external_seq, 1u);
  expect_fixes_clean(trace);
  expect_clean(load_sample("c14_external_agent.clean.pbtxt"));
}

TEST(ExternalAgents, WithoutTheAnnotationNothingIsSeen) {
  v1::Chunk trace = load_sample("c14_external_agent.race.pbtxt");
  trace.mutable_ops(0)->mutable_annotation()->set_kind(v1::ANNOTATE_MARK);
  expect_clean(trace);
}

TEST(ExternalAgents, UseBeforeTheCompletionIsObservedIsAHazardWhateverTheOrder) {
  // The kernel runs on the connector's own stream before the record: stream
  // order cannot cover an access the agent is still making.
  v1::Chunk trace = load_sample("c14_external_agent.race.pbtxt");
  v1::Op kernel = trace.ops(2);
  kernel.set_stream(2);
  kernel.set_seq(2);
  v1::Op record = trace.ops(1);
  record.set_seq(3);
  *trace.mutable_ops(1) = kernel;
  *trace.mutable_ops(2) = record;
  const race::CheckResult r = expect_hazards(trace, {{1, 2, HazardKind::kRaw, HazardClass::kCopyVsCompute}});
  const race::Fix fix = race::suggest_fix(r.all.at(0), *r.tables);
  EXPECT_FALSE(fix.available);
  EXPECT_NE(fix.text.find("nixl_rdma"), std::string::npos) << fix.text;
}

// The agent's completion observed by the host (EXTERNAL_DONE on thread 1):
// work thread 1 submits afterwards is ordered after it; thread 2's is not.
v1::Chunk done_on_host(uint32_t reader_thread) {
  v1::Chunk trace = load_sample("c14_external_agent.race.pbtxt");
  trace.mutable_ops(0)->mutable_annotation()->set_done_event(0);
  v1::Op& done = *trace.mutable_ops(1);
  done.Clear();
  done.set_seq(2);
  done.set_thread(1);
  done.mutable_annotation()->set_kind(v1::ANNOTATE_EXTERNAL_DONE);
  done.mutable_annotation()->set_agent(trace.ops(0).annotation().agent());
  v1::HostThread& t = *trace.add_threads();
  t.set_id(2);
  trace.mutable_ops(2)->set_thread(reader_thread);
  return trace;
}

TEST(ExternalAgents, ExternalDoneOrdersTheThreadThatObservedIt) {
  expect_clean(done_on_host(1));
  expect_hazards(done_on_host(2), {{2, 3, HazardKind::kRaw, HazardClass::kCopyVsCompute}});
}

TEST(ExternalAgents, ValidatorWantsAnAgentAndBytes) {
  v1::Chunk trace = load_sample("c14_external_agent.race.pbtxt");
  trace.mutable_ops(0)->mutable_annotation()->set_agent(0);
  trace.mutable_ops(0)->mutable_annotation()->mutable_access()->set_size(0);
  const auto errors = validation_errors(trace);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("names no agent"), std::string::npos) << errors[0];
  EXPECT_NE(errors[1].find("has no bytes"), std::string::npos) << errors[1];
}

}  // namespace
}  // namespace racetrack::check_test
