// The hazard catalogue's samples (docs/hazards.md): every shape has its
// pair, `check --emit-fixed` on each race sample writes a trace that checks
// clean, the why: line names the wrong wait of C9 and C10, and C11's reuse
// is checked against every stream that touched the block, transitively.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "check_test_support.h"
#include "racetrack/traces/trace_io.h"
#include "run_cli.h"
#include "test_support.h"

namespace racetrack::check_test {
namespace {

using nlohmann::json;
using racetrack::testing::run_cli;
using racetrack::testing::shell_quote;
using racetrack::testing::TempDir;

const std::string kSamples = RACETRACK_SAMPLES_DIR;

std::string sample(const std::string& name) {
  return kSamples + "/" + name;
}

// (shape, file, race) of every manifest entry whose shape is a catalogue id.
struct Entry {
  std::string shape, file;
  bool race = false;
};
std::vector<Entry> catalogue_entries() {
  std::ifstream in(kSamples + "/manifest.json");
  const json m = json::parse(in);
  std::vector<Entry> out;
  for (const json& s : m.at("samples")) {
    const std::string shape = s.at("shape");
    if (shape.size() >= 2 && shape[0] == 'C' && std::isdigit(static_cast<unsigned char>(shape[1])))
      out.push_back({shape, s.at("file"), !s.at("hazards").empty()});
  }
  return out;
}

TEST(Catalogue, EveryModelledShapeHasARaceAndACleanSample) {
  std::set<std::string> race, clean;
  for (const Entry& e : catalogue_entries()) (e.race ? race : clean).insert(e.shape);
  for (const char* shape :
       {"C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9", "C10", "C11", "C12", "C13", "C17"}) {
    EXPECT_TRUE(race.count(shape)) << shape << " has no race sample";
    EXPECT_TRUE(clean.count(shape)) << shape << " has no clean sample";
  }
}

// The report's fix removes the hazard: check finds it (exit 1), writes the
// trace with the fixes applied, and that trace checks clean (exit 0).
TEST(Catalogue, EmitFixedOnEveryRaceSampleChecksClean) {
  TempDir dir;
  size_t checked = 0;
  for (const Entry& e : catalogue_entries()) {
    if (!e.race) continue;
    SCOPED_TRACE(e.file);
    const std::string fixed = dir.path("fixed_" + e.file);
    const auto found =
        run_cli(dir, "check --emit-fixed " + shell_quote(fixed) + " " + shell_quote(sample(e.file)));
    EXPECT_EQ(found.code, 1) << found.out << found.err;
    EXPECT_NE(found.out.find("verified: re-checked with the fix applied"), std::string::npos) << found.out;
    const auto again = run_cli(dir, "check " + shell_quote(fixed));
    EXPECT_EQ(again.code, 0) << again.out << again.err;
    EXPECT_NE(again.out.find("0 hazard(s)"), std::string::npos) << again.out;
    ++checked;
  }
  EXPECT_GE(checked, 15u);
}

// The first shown group's why: line.
std::string why(const std::string& path) {
  auto result = race::check_file(path, race::CheckOptions{});
  EXPECT_TRUE(result.ok()) << result.error().describe();
  if (!result.ok() || result->groups.empty()) return "(no hazard)";
  return result->groups.front().explanation;
}

TEST(WrongWait, EventRecordedOnAnotherStreamIsNamed) {
  EXPECT_EQ(
      why(sample("c9_event_on_wrong_stream.race.pbtxt")),
      "#5 on compute waited, but on an event recorded on another stream than h2d_stream, where the racing "
      "op #2 runs (#4 waits on e_params, recorded at #3 on d2h_stream)");
}

TEST(WrongWait, EventRecordedOnTheLegacyDefaultStreamSaysSo) {
  EXPECT_EQ(
      why(sample("c9_default_stream_wait.race.pbtxt")),
      "#4 on reduce waited, but on an event recorded on another stream than current, where the racing op #1 "
      "runs (#3 waits on e_sync, recorded at #2 on default): the legacy default stream does not order work "
      "on non-blocking streams");
}

TEST(WrongWait, OneProducerOfSeveralIsNamed) {
  EXPECT_EQ(why(sample("c10_one_of_several_producers.race.pbtxt")),
            "#6 on reduce waited on one producer of \"bucket\" only (#5 waits on e1, recorded at #2 on "
            "producer_1), not on producer_2, where the racing op #3 runs: it must wait on every stream that "
            "writes it");
}

// A chunk's ops renumbered 1..n after an edit, so seqs stay strictly increasing.
void renumber(v1::Chunk& trace) {
  uint64_t seq = 0;
  for (v1::Op& op : *trace.mutable_ops()) op.set_seq(++seq);
}

// Inserts `op` before the op at index `at` (0-based).
void insert_op(v1::Chunk& trace, int at, const v1::Op& op) {
  auto* ops = trace.mutable_ops();
  ops->Add()->CopyFrom(op);
  for (int i = ops->size() - 1; i > at; --i) ops->SwapElements(i, i - 1);
  renumber(trace);
}

uint32_t stream_named(const v1::Chunk& trace, const std::string& name) {
  for (const v1::Stream& s : trace.streams())
    if (trace.strings(static_cast<int>(s.name()) - 1) == name) return s.id();
  ADD_FAILURE() << "no stream " << name;
  return 0;
}

// The writers of a region are kept as a stream mask up to stream 63 and
// listed past it: the waited-on producer on stream 80 is still a producer.
TEST(WrongWait, OneProducerOfSeveralIsNamedPastStream63) {
  v1::Chunk trace = load_sample("c10_one_of_several_producers.race.pbtxt");
  const uint32_t producer_1 = stream_named(trace, "producer_1");
  const uint32_t producer_2 = stream_named(trace, "producer_2");
  v1::Stream spare = trace.streams(static_cast<int>(producer_2) - 1);
  spare.set_name(static_cast<uint32_t>(trace.strings_size()) + 1);  // "spare"
  trace.add_strings("spare");
  constexpr uint32_t kHigh1 = 80, kHigh2 = 70;
  while (trace.streams_size() < static_cast<int>(kHigh1)) {
    spare.set_id(static_cast<uint32_t>(trace.streams_size()) + 1);
    *trace.add_streams() = spare;
  }
  // Producers' names and ops move to streams 80 and 70; 1 and 2 stay idle.
  for (auto [from, to] : {std::pair{producer_1, kHigh1}, std::pair{producer_2, kHigh2}}) {
    trace.mutable_streams(static_cast<int>(to) - 1)
        ->set_name(trace.streams(static_cast<int>(from) - 1).name());
    trace.mutable_streams(static_cast<int>(from) - 1)->set_name(spare.name());
    for (v1::Op& op : *trace.mutable_ops())
      if (op.stream() == from) op.set_stream(to);
  }
  TempDir dir;
  const std::string path = dir.path("high_streams.pbtxt");
  ASSERT_TRUE(save_trace(trace, path).ok());
  EXPECT_EQ(why(path),
            "#6 on reduce waited on one producer of \"bucket\" only (#5 waits on e1, recorded at #2 on "
            "producer_1), not on producer_2, where the racing op #3 runs: it must wait on every stream that "
            "writes it");
}

// DeepSpeed#7898's other half: the event is recorded on the producer's
// stream, but the wait is issued on the default stream, not the consumer's.
TEST(WrongWait, WaitIssuedOnAnotherStreamIsNamed) {
  v1::Chunk trace = load_sample("c9_default_stream_wait.clean.pbtxt");
  ASSERT_EQ(trace.ops(2).what_case(), v1::Op::kWait);
  trace.mutable_ops(2)->set_stream(stream_named(trace, "default"));
  TempDir dir;
  const std::string path = dir.path("misplaced_wait.pbtxt");
  ASSERT_TRUE(save_trace(trace, path).ok());
  EXPECT_EQ(
      why(path),
      "#4 on reduce is not ordered after current, where the racing op #1 runs: the wait that covers it, #3 "
      "waits on e_sync, recorded at #2 on current, was issued on default, not on reduce");
}

// The control: a consumer that never waited gets the plain explanation.
TEST(WrongWait, AConsumerThatNeverWaitedIsNotSaidToHaveWaited) {
  const std::string text = why(sample("c5_consumer_never_waits.race.pbtxt"));
  EXPECT_EQ(text.find("wait"), std::string::npos) << text;
  EXPECT_NE(text.find("is not ordered after anything on h2d_stream"), std::string::npos) << text;
}

// C11 transitively: the free on compute is ordered after the all-reduce on
// nccl as soon as the copy stream it joins waited on nccl first, and not when
// the copy stream waits on nccl only after compute joined it.
v1::Op wait_on(uint32_t stream, uint32_t event) {
  v1::Op op;
  op.set_thread(1);
  op.set_stream(stream);
  op.mutable_wait()->set_event(event);
  return op;
}

int index_of_record(const v1::Chunk& trace, uint32_t event) {
  for (int i = 0; i < trace.ops_size(); ++i)
    if (trace.ops(i).what_case() == v1::Op::kRecord && trace.ops(i).record().event() == event) return i;
  ADD_FAILURE() << "no record of event " << event;
  return 0;
}

TEST(ThreeStreamReuse, TheRaceSampleIsAReuseHazardAgainstTheCommunicationStream) {
  const race::CheckResult r = check_all(load_sample("c11_three_stream_reuse.race.pbtxt"));
  ASSERT_EQ(r.all.size(), 1u);
  EXPECT_EQ(r.all[0].cls, race::HazardClass::kReuse);
  EXPECT_EQ(r.all[0].first.seq, 5u);    // the all-reduce on nccl
  EXPECT_EQ(r.all[0].second.seq, 12u);  // the next owner's zero fill on compute
}

TEST(ThreeStreamReuse, AJoinThatReachesTheCommunicationStreamThroughTheCopyStreamOrdersTheReuse) {
  v1::Chunk trace = load_sample("c11_three_stream_reuse.race.pbtxt");
  const uint32_t copy = stream_named(trace, "copy");
  constexpr uint32_t kAllReduceDone = 2, kCopyToCompute = 3;  // e_n, e_x
  insert_op(trace, index_of_record(trace, kCopyToCompute), wait_on(copy, kAllReduceDone));
  EXPECT_EQ(validation_errors(trace), std::vector<std::string>{});
  expect_clean(trace);
}

TEST(ThreeStreamReuse, AJoinIssuedAfterTheCopyStreamsRecordDoesNotReachIt) {
  v1::Chunk trace = load_sample("c11_three_stream_reuse.race.pbtxt");
  const uint32_t copy = stream_named(trace, "copy");
  constexpr uint32_t kAllReduceDone = 2, kCopyToCompute = 3;
  insert_op(trace, index_of_record(trace, kCopyToCompute) + 1, wait_on(copy, kAllReduceDone));
  const race::CheckResult r = check_all(trace);
  ASSERT_EQ(r.all.size(), 1u) << text_format(trace);
  EXPECT_EQ(r.all[0].cls, race::HazardClass::kReuse);
}

}  // namespace
}  // namespace racetrack::check_test
