// The two sides of the PyTorch message grammar together: the messages the
// real racetrack_torch tracer writes for a small offload scenario (run by
// tests/python/emit_scenario.py with fake tensors) are fed to the assembler
// as NVTX calls, with a kernel launched inside each operator range.
#include <gtest/gtest.h>

#include <fstream>

#include "assembler_test_support.h"

namespace racetrack::capture::testing {
namespace {

using racetrack::testing::TempDir;

constexpr uint64_t kSegment = 0x7F0000000000, kActivation = kSegment, kPinned = 0x90000;

struct Call {
  std::string kind, message;
};

std::vector<Call> python_scenario(const TempDir& dir) {
#ifndef RACETRACK_PYTHON
  return {};
#else
  const std::string out = dir.path("scenario.txt");
  const std::string command = "PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=" RACETRACK_SOURCE_DIR "/capture/python:" RACETRACK_SOURCE_DIR
                              "/tests/python " RACETRACK_PYTHON " " RACETRACK_SOURCE_DIR
                              "/tests/python/emit_scenario.py " + out;
  if (std::system(command.c_str()) != 0) ADD_FAILURE() << "failed: " << command;
  std::vector<Call> calls;
  std::ifstream in(out);
  for (std::string line; std::getline(in, line);) {
    const size_t tab = line.find('\t');
    calls.push_back({line.substr(0, tab), tab == std::string::npos ? "" : line.substr(tab + 1)});
  }
  return calls;
#endif
}

TEST(AssemblerPython, TheTracersMessagesGiveDefiniteVerdictsNamingTheOperator) {
  TempDir dir;
  const std::vector<Call> calls = python_scenario(dir);
  if (calls.empty()) GTEST_SKIP() << "no Python 3 interpreter was found at configure time";

  FakeProgram p;
  const FakeStream compute = user_stream(0), offload = user_stream(1);
  ASSERT_EQ(compute.handle, 0x5000u) << "emit_scenario.py names the compute stream 0x5000";
  p.alloc(ApiKind::kMalloc, kSegment, 2 << 20);
  p.alloc(ApiKind::kHostAlloc, kPinned, 1 << 16);
  p.call(ApiKind::kStreamCreate, compute).value = 1;
  p.call(ApiKind::kStreamCreate, offload).value = 1;
  // The offload of the activation, with nothing ordering it before the ops.
  p.memcpy(offload, kPinned + 0x1000, kActivation, 4096, 2, MemoryKind::kPinned, MemoryKind::kDevice);
  for (const Call& c : calls) {
    if (c.kind == "push") {
      ASSERT_EQ(c.message.rfind("racetrack:op ", 0), 0u) << c.message;
      p.nvtx(ApiKind::kNvtxPush, c.message);
      p.launch(compute, {kActivation}, c.message.substr(13, c.message.find(' ', 13) - 13) + "_kernel");
    } else if (c.kind == "mark") {
      p.nvtx(ApiKind::kNvtxMark, c.message);
    } else {
      ASSERT_EQ(c.kind, "pop");
      p.nvtx(ApiKind::kNvtxPop);
    }
  }
  const Assembled a = assemble(p, dir.path("t.rtrace"), 7);

  // Every message was understood: no mark says something is malformed.
  for (const v1::Op* op : ops_of(a.trace, v1::Op::kAnnotation))
    EXPECT_NE(op->annotation().kind(), v1::ANNOTATE_MARK) << a.trace.strings(op->annotation().text() - 1);
  ASSERT_EQ(ops_of(a.trace, v1::Op::kHostAccess).size(), 1u);
  const auto kernels = ops_of(a.trace, v1::Op::kKernel);
  ASSERT_EQ(kernels.size(), 2u);
  for (const v1::Op* k : kernels) {
    EXPECT_GE(k->kernel().accesses_size(), 2);
    EXPECT_EQ(a.trace.strings(k->stack() - 1), "train.py:42 forward <- train.py:90 step");
  }

  // The mul only reads the activation: no conflict with the offload. The
  // in-place add writes it: a definite hazard.
  race::CheckOptions options;
  options.keep_all = true;
  const race::CheckResult result = race::check_trace(a.trace, options);
  ASSERT_EQ(result.all.size(), 1u);
  EXPECT_EQ(result.all[0].confidence, race::Confidence::kDefinite);
  EXPECT_EQ(result.all[0].second.seq, kernels[1]->seq());
  EXPECT_EQ(a.trace.strings(kernels[1]->nvtx() - 1), "aten::add_.Tensor");
}

}  // namespace
}  // namespace racetrack::capture::testing
